//! Saving and loading a world as `.npz` (1M f32 + 1M u32 values, 8 MB).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use orogen_world::World;

fn world_io(c: &mut Criterion) {
    let world = orogen_benches::layered_world(1_000_000);
    let mut bytes = Vec::new();
    world.write_npz(&mut bytes, "{}").unwrap();
    let mut group = c.benchmark_group("world_npz");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("write_8MB", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(bytes.len());
            world.write_npz(&mut out, "{}").unwrap();
            out
        })
    });
    group.bench_function("read_8MB", |b| {
        b.iter(|| World::read_npz(&bytes[..]).unwrap())
    });
    group.finish();
}

criterion_group!(benches, world_io);
criterion_main!(benches);
