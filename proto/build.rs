//! Generates the Rust for `proto/pozo/v1/*.proto` without a system `protoc`:
//! protox parses the files into a descriptor set in pure Rust, and
//! tonic-prost-build turns that descriptor set into messages and services.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = ["proto/pozo/v1/pozo.proto"];
    for file in files {
        println!("cargo:rerun-if-changed={file}");
    }
    let descriptors = protox::compile(files, ["proto"])?;
    tonic_prost_build::configure().build_server(true).build_client(true).compile_fds(descriptors)?;
    Ok(())
}
