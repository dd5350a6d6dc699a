//! Generates the Rust for `proto/pozo/v1/*.proto` without a system `protoc`:
//! protox parses the files into a descriptor set in pure Rust, tonic-prost-build
//! turns it into messages and services, and the encoded set is kept for the gRPC
//! reflection service.

use prost::Message;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = ["proto/pozo/v1/pozo.proto"];
    for file in files {
        println!("cargo:rerun-if-changed={file}");
    }
    let descriptors = protox::compile(files, ["proto"])?;
    let out_dir = std::path::PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out_dir.join("pozo_descriptor.bin"), descriptors.encode_to_vec())?;
    // Every service and client encodes with prost through our codec: smaller buffers (src/codec.rs).
    tonic_prost_build::configure()
        .build_server(true)
        .build_client(true)
        .codec_path("crate::codec::PozoCodec")
        .compile_fds(descriptors)?;
    Ok(())
}
