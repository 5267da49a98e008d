fn main() {
    println!("tmemu");
}
