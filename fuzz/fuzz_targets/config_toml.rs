//! The config reader and validation never panic, whatever the text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(config) = orogen::Config::from_toml(text, "fuzz.toml")
    {
        let _ = config.validate();
        let printed = config.to_toml();
        let back = orogen::Config::from_toml(&printed, "printed.toml").expect("a printed config parses");
        assert_eq!(back.to_toml(), printed);
    }
});
