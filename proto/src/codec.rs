//! The gRPC codec of every `pozo.v1` service and client: prost's, with smaller buffers.
//!
//! tonic gives every call, and every stream for as long as it is open, an encode buffer and a
//! decode buffer of 8 KiB each. Our messages are a few hundred bytes (an envelope about 200, a
//! press's reply about 170), and each table agent keeps its `Table/Commands` and `Table/Watch`
//! streams open: the benchmark's 1,000 command streams alone held 16 MiB of buffers
//! (docs/benchmarks.md, issue 47 step 5), and each watch stream another 8 KiB.
//! Here each starts at [`BUFFER_BYTES`] and grows as a message needs (a report of many entries
//! grows its buffer as with tonic's default, from a smaller start).

use std::marker::PhantomData;

use tonic::codec::{BufferSettings, Codec};
use tonic_prost::{ProstCodec, ProstDecoder, ProstEncoder};

/// What each buffer starts with: room for the usual message whole.
pub const BUFFER_BYTES: usize = 1024;

/// tonic's default: an encoded stream hands its bytes on once this many are waiting.
const YIELD_THRESHOLD: usize = 32 * 1024;

/// prost's encoding with [`BUFFER_BYTES`] buffers (`codec_path` of `build.rs`).
#[derive(Debug, Clone)]
pub struct PozoCodec<T, U>(PhantomData<(T, U)>);

impl<T, U> Default for PozoCodec<T, U> {
    fn default() -> Self {
        PozoCodec(PhantomData)
    }
}

fn settings() -> BufferSettings {
    BufferSettings::new(BUFFER_BYTES, YIELD_THRESHOLD)
}

impl<T, U> Codec for PozoCodec<T, U>
where
    T: prost::Message + Send + 'static,
    U: prost::Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = ProstDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProstCodec::<T, U>::raw_encoder(settings())
    }

    fn decoder(&mut self) -> Self::Decoder {
        ProstCodec::<T, U>::raw_decoder(settings())
    }
}
