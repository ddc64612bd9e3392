//! Fills a result store with N rows no run will ask for (random keys), as
//! a store that has served a busy course for a long while holds: for
//! `scripts/bench-store`, which times an all-hit run over it.
//!
//! Usage: cargo run --release -p harness --example store-fill -- DIR N

use harness::executor::Limits;
use harness::outcome::{Row, Verdict};
use harness::store::Store;
use sha2::{Digest, Sha256};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(dir), Some(n)) = (args.next(), args.next()) else {
        anyhow::bail!("usage: store-fill DIR N");
    };
    let n: u64 = n.parse()?;
    let store = Store::open(std::path::Path::new(&dir), 1 << 40)?;
    let limits = Limits::new(std::time::Duration::from_secs(80), 1 << 30);
    let seed = std::process::id().to_le_bytes();
    for i in 0..n {
        let key: [u8; 32] = Sha256::new()
            .chain_update(seed)
            .chain_update(i.to_le_bytes())
            .finalize()
            .into();
        let mut row = Row::new("s001", "lightsout", "lightsout/easy", "3x3-07.txt");
        row.verdict = if i % 3 == 0 {
            Verdict::WrongAnswer
        } else {
            Verdict::Accepted
        };
        row.detail = if i % 3 == 0 {
            format!("lights still on after {} moves ({} lit)", i % 40, i % 7 + 1)
        } else {
            String::new()
        };
        row.cpu_ms = Some((i % 900) as f64 / 10.0);
        row.wall_ms = Some((i % 1200) as f64 / 10.0);
        row.moves = Some(i % 25);
        store.keep(&key, &row, &limits);
    }
    Ok(())
}
