fn main() {
    let _highrise = highrise_agent::init("tetris");
}
