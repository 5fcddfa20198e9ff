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
}
