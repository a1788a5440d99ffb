fn main() {
    std::process::exit(fpsan::cli::main());
}
