//! `cargo run -p highrise-example-bookstore -- --variant before` (then `--variant after`)

use clap::Parser;

fn main() -> anyhow::Result<()> {
    let options = bookstore::Options::parse();
    let _highrise = highrise_agent::AgentBuilder::new("bookstore")
        .version_label(options.variant.label())
        .start()?;
    let summary = bookstore::serve(&options)?;
    println!(
        "bookstore ({}): {} requests, revenue {}",
        options.variant.label(),
        summary.requests,
        summary.revenue
    );
    Ok(())
}
