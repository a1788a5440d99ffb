//! Generates prost structs from fpsan's slim Perfetto schema
//! (src/read/proto/slim.proto) with the protoc shipped by protoc-bin-vendored,
//! so building needs no system protobuf compiler.
fn main() {
    let proto = "src/read/proto/slim.proto";
    println!("cargo:rerun-if-changed={proto}");
    let protoc = protoc_bin_vendored::protoc_bin_path().expect("vendored protoc for this platform");
    // A build script is single-threaded: setting the variable races with nothing.
    std::env::set_var("PROTOC", protoc);
    prost_build::Config::new().compile_protos(&[proto], &["src/read/proto"]).expect("compile slim.proto");
}
