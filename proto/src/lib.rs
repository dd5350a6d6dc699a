//! The `pozo.v1` wire protocol, generated at build time from `proto/pozo/v1/*.proto`
//! (protox + tonic-prost-build; no system `protoc`).

/// Messages and services of package `pozo.v1`.
pub mod v1 {
    tonic::include_proto!("pozo.v1");
}

/// The encoded `FileDescriptorSet` of every `.proto`, for gRPC reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/pozo_descriptor.bin"));
