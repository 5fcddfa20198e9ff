//! The world reader never panics, whatever the bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok((world, config)) = orogen_world::World::read_npz(data) {
        // A world that loads writes again and reloads equal.
        let mut bytes = Vec::new();
        world.write_npz(&mut bytes, &config).expect("a loaded world writes");
        let (again, _) = orogen_world::World::read_npz(&bytes[..]).expect("a written world loads");
        assert_eq!(again, world);
    }
});
