//! Command line: argument parsing and dispatch. The only place that turns
//! errors into one stderr line and an exit status.

pub fn main() -> i32 {
    0
}
