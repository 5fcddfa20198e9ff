//! The ids every stage and export shares (see the world conventions).

/// Water kind per region (`u8`).
pub mod water {
    /// Dry land.
    pub const LAND: u8 = 0;
    /// Water connected through water to the map border.
    pub const OCEAN: u8 = 1;
    /// A lake: enclosed water, or a flooded depression of at least the minimum size.
    pub const LAKE: u8 = 2;
}

/// Biome per region (`u8`). Rivers are not a biome: they live on corners.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Biome {
    /// Water connected to the map border.
    Ocean = 0,
    /// Enclosed water and flooded depressions.
    Lake = 1,
    /// The lowest land, next to the sea.
    Beach = 2,
    /// Dry lowland.
    Desert = 3,
    /// Land of middling moisture below the highlands.
    Grassland = 4,
    /// Wet land above the lowest band: temperate forest.
    Forest = 5,
    /// Wet lowland: tropical rainforest.
    Rainforest = 6,
    /// Wet upland: boreal forest.
    Taiga = 7,
    /// Highland of middling moisture.
    Tundra = 8,
    /// Dry highland: bare rock.
    Mountain = 9,
    /// The highest land and wet highland: snow caps.
    Snow = 10,
}

impl Biome {
    /// Every biome, in id order.
    pub const ALL: [Biome; 11] = [
        Biome::Ocean,
        Biome::Lake,
        Biome::Beach,
        Biome::Desert,
        Biome::Grassland,
        Biome::Forest,
        Biome::Rainforest,
        Biome::Taiga,
        Biome::Tundra,
        Biome::Mountain,
        Biome::Snow,
    ];

    /// The number of biome ids.
    pub const COUNT: usize = Self::ALL.len();

    /// The biome with this id, if any.
    pub fn from_id(id: u8) -> Option<Biome> {
        Self::ALL.get(id as usize).copied()
    }

    /// The id stored in biome layers.
    pub fn id(self) -> u8 {
        self as u8
    }

    /// A lower-case name for files, legends and the command line.
    pub fn name(self) -> &'static str {
        match self {
            Biome::Ocean => "ocean",
            Biome::Lake => "lake",
            Biome::Beach => "beach",
            Biome::Desert => "desert",
            Biome::Grassland => "grassland",
            Biome::Forest => "forest",
            Biome::Rainforest => "rainforest",
            Biome::Taiga => "taiga",
            Biome::Tundra => "tundra",
            Biome::Mountain => "mountain",
            Biome::Snow => "snow",
        }
    }

    /// True for ocean and lake.
    pub fn is_water(self) -> bool {
        matches!(self, Biome::Ocean | Biome::Lake)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_match_the_conventions() {
        for (id, biome) in Biome::ALL.iter().enumerate() {
            assert_eq!(biome.id() as usize, id);
            assert_eq!(Biome::from_id(id as u8), Some(*biome));
        }
        assert_eq!(Biome::from_id(11), None);
        assert_eq!(Biome::Snow.id(), 10);
        assert_eq!(Biome::Beach.id(), 2);
    }
}
