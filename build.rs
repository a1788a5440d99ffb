//! Generates prost structs from fpsan's slim Perfetto schema
//! (src/read/proto/slim.proto) with the protoc shipped by protoc-bin-vendored,
//! so building needs no system protobuf compiler.
fn main() {
    let proto = "src/read/proto/slim.proto";
    println!("cargo:rerun-if-changed={proto}");
    let protoc = protoc_bin_vendored::protoc_bin_path().expect("vendored protoc for this platform");
    // SAFETY (edition 2024 requires unsafe): single-threaded build script.
    std::env::set_var("PROTOC", protoc);
    prost_build::Config::new().compile_protos(&[proto], &["src/read/proto"]).expect("compile slim.proto");
}
