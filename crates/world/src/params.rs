//! Parameter errors shared by every stage: each names the parameter, the value given and the
//! range allowed, so a message tells the user what to change.
//!
//! ```
//! use orogen_world::params::in_range;
//! assert!(in_range("water_level", 0.35, 0.0..=1.0).is_ok());
//! let err = in_range("water_level", 7.0, 0.0..=1.0).unwrap_err();
//! assert_eq!(err.to_string(), "water_level = 7 is out of range: allowed 0 ..= 1");
//! assert!(in_range("noise_scale", f64::NAN, 0.0..=1e6).is_err());
//! ```

use std::fmt::Display;
use std::ops::RangeInclusive;

use thiserror::Error;

/// A parameter outside its allowed range (or otherwise unusable).
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("{param} = {value} is out of range: allowed {allowed}")]
pub struct ParamError {
    /// The parameter's name as the user spells it (`cells`, `water_level`, `anchors[2].x`).
    pub param: String,
    /// The value given, formatted.
    pub value: String,
    /// What is allowed, in words or as `min ..= max`.
    pub allowed: String,
}

impl ParamError {
    /// An error with a free-form description of what is allowed.
    pub fn new(param: impl Into<String>, value: impl Display, allowed: impl Into<String>) -> Self {
        ParamError {
            param: param.into(),
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }

    /// The same error with `prefix` before the parameter's name (`classic.rivers.` + `count`),
    /// for params nested in a bigger config.
    pub fn prefixed(mut self, prefix: &str) -> Self {
        self.param = format!("{prefix}{}", self.param);
        self
    }
}

/// Checks `min <= value <= max`. NaN is never in range.
pub fn in_range<T: PartialOrd + Display>(
    param: &str,
    value: T,
    range: RangeInclusive<T>,
) -> Result<(), ParamError> {
    if range.contains(&value) {
        Ok(())
    } else {
        Err(ParamError::new(
            param,
            &value,
            format!("{} ..= {}", range.start(), range.end()),
        ))
    }
}

/// Checks `value > 0` and finite.
pub fn positive_finite(param: &str, value: f64) -> Result<(), ParamError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(ParamError::new(param, value, "a finite number > 0"))
    }
}

/// Checks that a value is finite.
pub fn finite(param: &str, value: f64) -> Result<(), ParamError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(ParamError::new(param, value, "a finite number"))
    }
}

/// One parameter of a stage's `Params`, described once, next to the `Params`: its path
/// relative to them, a doc line, what values it takes and its unit. The crate's `validate`
/// checks the ranges through [`check_specs`]; the `orogen` command builds its flags, help,
/// `--set` paths, README table and the playground's controls from the same table. The default
/// is the `Params`' `Default`, never restated.
///
/// ```
/// use orogen_world::params::{Spec, check_specs};
/// #[derive(Default)]
/// struct Params { gain: f64, octaves: u32 }
/// const PARAMS: &[Spec<Params>] = &[
///     Spec::float("gain", "fBm gain", 0.0, 1.0, |p| p.gain),
///     Spec::int("octaves", "fBm octaves", 1, 16, |p| p.octaves.into()),
/// ];
/// let err = check_specs(&Params { gain: 1.5, octaves: 6 }, PARAMS).unwrap_err();
/// assert_eq!(err.to_string(), "gain = 1.5 is out of range: allowed 0 ..= 1");
/// assert!(check_specs(&Params { gain: 0.5, octaves: 16 }, PARAMS).is_ok());
/// ```
#[derive(Debug)]
pub struct Spec<P> {
    /// The path relative to the `Params` (`selection.main.spacing`), as in a TOML config.
    pub path: &'static str,
    /// What it does, in a line.
    pub doc: &'static str,
    /// The unit (`m`, `px`, `cell spacings`), if any.
    pub unit: Option<&'static str>,
    /// The values it takes.
    pub kind: Kind<P>,
}

/// The values a [`Spec`] takes.
#[derive(Debug)]
pub enum Kind<P> {
    /// An integer in `min ..= max`.
    Int {
        /// Reads the value from the params.
        get: fn(&P) -> i128,
        /// The least value allowed.
        min: i128,
        /// The greatest value allowed.
        max: i128,
    },
    /// A number in `min ..= max` (NaN refused).
    Float {
        /// Reads the value from the params.
        get: fn(&P) -> f64,
        /// The least value allowed.
        min: f64,
        /// The greatest value allowed.
        max: f64,
    },
    /// A finite number > 0.
    Positive {
        /// Reads the value from the params.
        get: fn(&P) -> f64,
    },
    /// One of these names (an enum: its serde names; anything else is refused while parsing).
    Choice(&'static [&'static str]),
    /// A switch, a list or a table, checked by the crate's own code; the text says what is
    /// allowed.
    Other(&'static str),
}

impl<P> Spec<P> {
    /// An integer parameter in `min ..= max`.
    pub const fn int(
        path: &'static str,
        doc: &'static str,
        min: i128,
        max: i128,
        get: fn(&P) -> i128,
    ) -> Self {
        Spec {
            path,
            doc,
            unit: None,
            kind: Kind::Int { get, min, max },
        }
    }

    /// A number parameter in `min ..= max`.
    pub const fn float(
        path: &'static str,
        doc: &'static str,
        min: f64,
        max: f64,
        get: fn(&P) -> f64,
    ) -> Self {
        Spec {
            path,
            doc,
            unit: None,
            kind: Kind::Float { get, min, max },
        }
    }

    /// A finite number > 0.
    pub const fn positive(path: &'static str, doc: &'static str, get: fn(&P) -> f64) -> Self {
        Spec {
            path,
            doc,
            unit: None,
            kind: Kind::Positive { get },
        }
    }

    /// One of `choices`.
    pub const fn choice(
        path: &'static str,
        doc: &'static str,
        choices: &'static [&'static str],
    ) -> Self {
        Spec {
            path,
            doc,
            unit: None,
            kind: Kind::Choice(choices),
        }
    }

    /// A switch, list or table; `allowed` says what it takes.
    pub const fn other(path: &'static str, doc: &'static str, allowed: &'static str) -> Self {
        Spec {
            path,
            doc,
            unit: None,
            kind: Kind::Other(allowed),
        }
    }

    /// The same parameter with a unit.
    pub const fn unit(mut self, unit: &'static str) -> Self {
        self.unit = Some(unit);
        self
    }

    /// Checks this parameter of `params` (choices and others: nothing to check here).
    pub fn check(&self, params: &P) -> Result<(), ParamError> {
        match self.kind {
            Kind::Int { get, min, max } => in_range(self.path, get(params), min..=max),
            Kind::Float { get, min, max } => in_range(self.path, get(params), min..=max)
                .map_err(|e| shown_as_f32(e, get(params))),
            Kind::Positive { get } => {
                positive_finite(self.path, get(params)).map_err(|e| shown_as_f32(e, get(params)))
            }
            Kind::Choice(_) | Kind::Other(_) => Ok(()),
        }
    }

    /// The description without the accessor, with `prefix` before the path.
    pub fn describe(&self, prefix: &str) -> ParamInfo {
        let (min, max, choices, allowed) = match self.kind {
            Kind::Int { min, max, .. } => (
                Some(Bound::Int(min)),
                Some(Bound::Int(max)),
                None,
                format!("{min} ..= {max}"),
            ),
            Kind::Float { min, max, .. } => (
                Some(Bound::Float(min)),
                Some(Bound::Float(max)),
                None,
                format!("{min} ..= {max}"),
            ),
            Kind::Positive { .. } => (None, None, None, "a finite number > 0".to_owned()),
            Kind::Choice(names) => (None, None, Some(names), names.join(", ")),
            Kind::Other(text) => (None, None, None, text.to_owned()),
        };
        ParamInfo {
            path: format!("{prefix}{}", self.path),
            doc: self.doc,
            unit: self.unit,
            min,
            max,
            choices,
            allowed,
        }
    }
}

/// Checks every parameter of `specs` on `params`; the first out of range is the error.
pub fn check_specs<P>(params: &P, specs: &[Spec<P>]) -> Result<(), ParamError> {
    specs.iter().try_for_each(|s| s.check(params))
}

/// The descriptions of `specs` with `prefix` before each path.
pub fn describe_specs<P>(prefix: &str, specs: &[Spec<P>]) -> Vec<ParamInfo> {
    specs.iter().map(|s| s.describe(prefix)).collect()
}

/// An f32 field read through an f64 accessor shows its f32 digits (`-0.1`, not
/// `-0.10000000149011612`): the value as the user wrote it.
fn shown_as_f32(mut e: ParamError, v: f64) -> ParamError {
    if v.is_finite() && f64::from(v as f32) == v {
        e.value = (v as f32).to_string();
    }
    e
}

/// An end of a parameter's range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// An integer parameter's end.
    Int(i128),
    /// A number parameter's end.
    Float(f64),
}

/// A parameter's description without its `Params` type (a row of the parameter table).
#[derive(Clone, Debug, PartialEq)]
pub struct ParamInfo {
    /// The path (with any prefix given).
    pub path: String,
    /// What it does, in a line.
    pub doc: &'static str,
    /// The unit, if any.
    pub unit: Option<&'static str>,
    /// The smallest value allowed, when a range bounds it.
    pub min: Option<Bound>,
    /// The largest value allowed, when a range bounds it.
    pub max: Option<Bound>,
    /// The names it takes, for a choice.
    pub choices: Option<&'static [&'static str]>,
    /// What it takes, in words (`0 ..= 1`, `fill, carve`, `true or false`).
    pub allowed: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_errors_name_param_value_and_range() {
        let err = in_range("cells", 0usize, 3..=4_000_000).unwrap_err();
        assert_eq!(err.param, "cells");
        assert_eq!(err.value, "0");
        assert_eq!(err.allowed, "3 ..= 4000000");
        assert!(in_range("cells", 3usize, 3..=4_000_000).is_ok());
        assert!(positive_finite("size", f64::INFINITY).is_err());
        assert!(positive_finite("size", -1.0).is_err());
        assert!(positive_finite("size", 1.0).is_ok());
        assert!(finite("x", f64::NAN).is_err());
    }

    #[test]
    fn specs_check_their_ranges_and_describe_them() {
        struct P {
            n: usize,
            x: f64,
        }
        const SPECS: &[Spec<P>] = &[
            Spec::int("n", "a count", 3, 10, |p| p.n as i128),
            Spec::positive("x", "a length", |p: &P| p.x).unit("m"),
            Spec::choice("kind", "a kind", &["a", "b"]),
        ];
        assert!(check_specs(&P { n: 3, x: 0.5 }, SPECS).is_ok());
        let err = check_specs(&P { n: 11, x: 0.5 }, SPECS).unwrap_err();
        assert_eq!(err.to_string(), "n = 11 is out of range: allowed 3 ..= 10");
        let err = check_specs(&P { n: 4, x: f64::NAN }, SPECS).unwrap_err();
        assert_eq!(err.param, "x");
        let rows = describe_specs("s.", SPECS);
        assert_eq!(rows[0].path, "s.n");
        assert_eq!(rows[0].min, Some(Bound::Int(3)));
        assert_eq!(rows[1].unit, Some("m"));
        assert_eq!(rows[1].allowed, "a finite number > 0");
        assert_eq!(rows[2].choices, Some(&["a", "b"][..]));
    }
}
