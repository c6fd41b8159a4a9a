//! `cargo run -p highrise-example-tetris -- --duration-s 30 --restart-every-s 5`

use clap::Parser;

fn main() -> anyhow::Result<()> {
    let options = tetris::Options::parse();
    let _highrise = highrise_agent::AgentBuilder::new("tetris")
        .version_label(options.version_label.clone())
        .start()?;
    let summary = tetris::play(&options)?;
    println!(
        "tetris: {} games, {} pieces, {} threads leaked in Game::run",
        summary.games, summary.pieces, summary.leaked_threads
    );
    Ok(())
}
