//! `world.geojson`: the world as GIS features (RFC 7946), in the conventions' geographic
//! coordinates: the map's centre at longitude 0, latitude 0, 1 degree = 111,320 m, north up.
//!
//! One `FeatureCollection`; each feature's `kind` property says what it is:
//! - `land`: a Polygon per land mass (regions with `region_water` 0). Its outer ring is the
//!   coastline (or the map edge where land meets it), its holes the shores of lakes and inland
//!   water.
//! - `lake`: a Polygon per lake (`region_water` 2), its outer ring the lake shore.
//! - `biome`: a MultiPolygon per biome (`region_biome`), the union of its regions' cells.
//! - `river`: a LineString per river (`rivers`, source first) with per-vertex `flow`
//!   (`river_flow`) and `width_m` (`river_width` in metres).
//! - `flora`: a Point per plant (`flora_xy`) with `species`, `size` and `model`.
//!
//! Region unions are traced over the mesh, never rasterised: the cell of a region is its
//! median-dual cell (through its triangles' centroids and its edges' midpoints; the cells
//! `biomes.png` paints, close to the Voronoi cells), closed along the map edge for boundary
//! sites. The boundary edges between regions inside and outside the set are chained into rings;
//! each vertex has at most one edge in and one out, so the rings are simple and unique.
//! Outer rings are counter-clockwise on the globe and holes clockwise, as RFC 7946 asks; every
//! ring is closed (first position repeated).

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use orogen_world::ids::{Biome, water};
use orogen_world::{DualMesh, World, WorldMeta};
use serde_json::{Value, json};

use crate::ExportError;

/// The file name.
pub const FILE: &str = "world.geojson";

/// Metres per degree.
pub const METRES_PER_DEGREE: f64 = 111_320.0;

/// Longitude and latitude (degrees) of a map point.
pub fn lon_lat(meta: &WorldMeta, x: f64, y: f64) -> [f64; 2] {
    let lon = (x / meta.width - 0.5) * meta.world_size_m / METRES_PER_DEGREE;
    let lat = -(y / meta.height - 0.5) * meta.world_size_m * (meta.height / meta.width)
        / METRES_PER_DEGREE;
    [lon, lat]
}

/// A polygon in map coordinates: a counter-clockwise outer ring (positive shoelace with y down)
/// and clockwise holes; rings are open (the first point is not repeated).
#[derive(Clone, Debug, PartialEq)]
pub struct MapPolygon {
    /// The outer ring, counter-clockwise.
    pub outer: Vec<[f64; 2]>,
    /// The holes' rings, each clockwise.
    pub holes: Vec<Vec<[f64; 2]>>,
}

/// Twice the signed area (shoelace) of an open ring.
pub fn shoelace2(ring: &[[f64; 2]]) -> f64 {
    let n = ring.len();
    (0..n)
        .map(|i| {
            let (a, b) = (ring[i], ring[(i + 1) % n]);
            a[0] * b[1] - b[0] * a[1]
        })
        .sum()
}

fn contains(ring: &[[f64; 2]], p: [f64; 2]) -> bool {
    let mut inside = false;
    let n = ring.len();
    for i in 0..n {
        let (a, b) = (ring[i], ring[(i + n - 1) % n]);
        if (a[1] > p[1]) != (b[1] > p[1]) {
            let x = a[0] + (p[1] - a[1]) * (b[0] - a[0]) / (b[1] - a[1]);
            if p[0] < x {
                inside = !inside;
            }
        }
    }
    inside
}

/// A vertex of the traced cell boundaries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum V {
    Corner(u32),
    /// The midpoint of a Delaunay edge (smaller region first).
    Mid(u32, u32),
    /// A boundary site (on the map edge).
    Site(u32),
}

fn mid(a: u32, b: u32) -> V {
    V::Mid(a.min(b), a.max(b))
}

/// The Delaunay edges with a single triangle (the map edge).
fn hull_edges(mesh: &DualMesh) -> HashMap<(u32, u32), u8> {
    let mut count: HashMap<(u32, u32), u8> = HashMap::with_capacity(mesh.n_corners() * 2);
    for t in mesh.corner_regions.rows() {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            *count.entry((a.min(b), a.max(b))).or_insert(0) += 1;
        }
    }
    count
}

/// The union of the cells of the regions where `inside` holds, as polygons (outer rings sorted
/// by their first traced vertex, so the order is the same on every run).
pub fn region_polygons(mesh: &DualMesh, inside: impl Fn(usize) -> bool) -> Vec<MapPolygon> {
    region_polygons_with(mesh, &hull_edges(mesh), inside)
}

fn region_polygons_with(
    mesh: &DualMesh,
    edge_count: &HashMap<(u32, u32), u8>,
    inside: impl Fn(usize) -> bool,
) -> Vec<MapPolygon> {
    region_polygons_over(mesh, edge_count, 0..mesh.n_corners(), inside)
}

/// [`region_polygons`] visiting only `corners` (which must include every corner touching an
/// inside region).
fn region_polygons_over(
    mesh: &DualMesh,
    edge_count: &HashMap<(u32, u32), u8>,
    corners: impl IntoIterator<Item = usize>,
    inside: impl Fn(usize) -> bool,
) -> Vec<MapPolygon> {
    let is_hull = |a: u32, b: u32| edge_count.get(&(a.min(b), a.max(b))) == Some(&1);
    let mut next: BTreeMap<V, V> = BTreeMap::new();
    for c in corners {
        let t = mesh.corner_regions.row(c);
        for k in 0..3 {
            let (r, p, q) = (t[k], t[(k + 1) % 3], t[(k + 2) % 3]);
            if !inside(r as usize) {
                continue;
            }
            // Going counter-clockwise around r, this triangle lies between p and q.
            if !inside(p as usize) {
                next.insert(mid(r, p), V::Corner(c as u32));
            }
            if !inside(q as usize) {
                next.insert(V::Corner(c as u32), mid(r, q));
            }
            if is_hull(r, q) {
                next.insert(mid(r, q), V::Site(r));
            }
            if is_hull(r, p) {
                next.insert(V::Site(r), mid(r, p));
            }
        }
    }
    let point = |v: V| -> [f64; 2] {
        let xy = |r: u32| {
            [
                mesh.region_xy[[r as usize, 0]],
                mesh.region_xy[[r as usize, 1]],
            ]
        };
        match v {
            V::Corner(c) => [
                mesh.corner_xy[[c as usize, 0]],
                mesh.corner_xy[[c as usize, 1]],
            ],
            V::Site(r) => xy(r),
            V::Mid(a, b) => {
                let (a, b) = (xy(a), xy(b));
                [(a[0] + b[0]) * 0.5, (a[1] + b[1]) * 0.5]
            }
        }
    };
    let mut outers: Vec<Vec<[f64; 2]>> = Vec::new();
    let mut holes: Vec<Vec<[f64; 2]>> = Vec::new();
    while let Some((&start, _)) = next.first_key_value() {
        let mut ring = Vec::new();
        let mut v = start;
        let mut closed = false;
        while let Some(n) = next.remove(&v) {
            ring.push(point(v));
            if n == start {
                closed = true;
                break;
            }
            v = n;
        }
        if !closed || ring.len() < 3 {
            continue;
        }
        if shoelace2(&ring) > 0.0 {
            outers.push(ring);
        } else {
            holes.push(ring);
        }
    }
    let areas: Vec<f64> = outers.iter().map(|r| shoelace2(r)).collect();
    let mut polygons: Vec<MapPolygon> = outers
        .into_iter()
        .map(|outer| MapPolygon {
            outer,
            holes: Vec::new(),
        })
        .collect();
    for hole in holes {
        let owner = (0..polygons.len())
            .filter(|&i| contains(&polygons[i].outer, hole[0]))
            .min_by(|&a, &b| areas[a].total_cmp(&areas[b]));
        if let Some(i) = owner {
            polygons[i].holes.push(hole);
        }
    }
    polygons
}

/// A ring in GeoJSON positions: reversed (latitude flips y, so this keeps outer rings
/// counter-clockwise on the globe) and closed.
fn geo_ring(meta: &WorldMeta, ring: &[[f64; 2]]) -> Vec<[f64; 2]> {
    let mut out: Vec<[f64; 2]> = ring
        .iter()
        .rev()
        .map(|p| lon_lat(meta, p[0], p[1]))
        .collect();
    out.push(out[0]);
    out
}

fn geo_polygon(meta: &WorldMeta, p: &MapPolygon) -> Vec<Vec<[f64; 2]>> {
    std::iter::once(geo_ring(meta, &p.outer))
        .chain(p.holes.iter().map(|h| geo_ring(meta, h)))
        .collect()
}

fn feature(geometry: Value, properties: Value) -> Value {
    json!({ "type": "Feature", "geometry": geometry, "properties": properties })
}

/// The feature collection of a world (see the module docs). Layers that are absent give no
/// features of their kind.
pub fn feature_collection(world: &World) -> Result<Value, ExportError> {
    let mesh = world.mesh()?;
    let meta = &world.meta;
    let mut features = Vec::new();
    let counts = hull_edges(mesh);
    let water_kind: Option<Vec<u8>> = if world.has_layer("region_water") {
        Some(world.water_kinds()?)
    } else if world.has_layer("region_elevation") {
        let e = world.view1::<f32>("region_elevation")?;
        Some(
            e.iter()
                .map(|&v| if v < 0.0 { water::OCEAN } else { water::LAND })
                .collect(),
        )
    } else {
        None
    };
    if let Some(kind) = &water_kind {
        for p in region_polygons_with(mesh, &counts, |r| kind[r] == water::LAND) {
            let geometry = json!({ "type": "Polygon", "coordinates": geo_polygon(meta, &p) });
            features.push(feature(geometry, json!({ "kind": "land" })));
        }
        features.extend(lake_features(world, kind, &counts)?);
    }
    if world.has_layer("region_biome") {
        let biome = world.view1::<u8>("region_biome")?;
        for b in Biome::ALL {
            let polygons = region_polygons_with(mesh, &counts, |r| biome[r] == b.id());
            if polygons.is_empty() {
                continue;
            }
            let coords: Vec<_> = polygons.iter().map(|p| geo_polygon(meta, p)).collect();
            let geometry = json!({ "type": "MultiPolygon", "coordinates": coords });
            let props = json!({ "kind": "biome", "biome": b.name(), "biome_id": b.id() });
            features.push(feature(geometry, props));
        }
    }
    if world.has_layer("rivers") {
        features.extend(river_features(world)?);
    }
    if world.has_layer("flora_xy") {
        let xy = world.view2::<f64>("flora_xy")?;
        let n = xy.nrows();
        let get_u32 = |name: &str| -> Result<Option<Vec<u32>>, ExportError> {
            Ok(if world.has_layer(name) {
                Some(world.view::<u32>(name)?.iter().copied().collect())
            } else {
                None
            })
        };
        let species = get_u32("flora_species")?;
        let model = get_u32("flora_model")?;
        let size: Option<Vec<f32>> = if world.has_layer("flora_size") {
            Some(world.view::<f32>("flora_size")?.iter().copied().collect())
        } else {
            None
        };
        for i in 0..n {
            let geometry = json!({
                "type": "Point",
                "coordinates": lon_lat(meta, xy[[i, 0]], xy[[i, 1]]),
            });
            let at = |v: &Option<Vec<u32>>| v.as_ref().and_then(|v| v.get(i).copied());
            let props = json!({
                "kind": "flora",
                "species": at(&species),
                "model": at(&model),
                "size": size.as_ref().and_then(|v| v.get(i).copied()),
            });
            features.push(feature(geometry, props));
        }
    }
    Ok(json!({ "type": "FeatureCollection", "features": features }))
}

/// One Polygon per lake; with `region_lake` (lake ids) and `lake_surface` (elevation of each
/// lake's surface) each carries its `lake` id and `surface_m`.
fn lake_features(
    world: &World,
    kind: &[u8],
    counts: &HashMap<(u32, u32), u8>,
) -> Result<Vec<Value>, ExportError> {
    let mesh = world.mesh()?;
    let meta = &world.meta;
    let polygon =
        |p: &MapPolygon| json!({ "type": "Polygon", "coordinates": geo_polygon(meta, p) });
    let ids: Option<Vec<i32>> = if world.has_layer("region_lake") {
        Some(world.view1::<i32>("region_lake")?.to_vec())
    } else {
        None
    };
    let surface: Option<Vec<f32>> = if world.has_layer("lake_surface") {
        Some(world.view1::<f32>("lake_surface")?.to_vec())
    } else {
        None
    };
    let Some(ids) = ids.filter(|v| v.len() == kind.len()) else {
        return Ok(
            region_polygons_with(mesh, counts, |r| kind[r] == water::LAKE)
                .iter()
                .map(|p| feature(polygon(p), json!({ "kind": "lake" })))
                .collect(),
        );
    };
    // The corners of each lake's regions, in corner order.
    let n_lakes = ids
        .iter()
        .copied()
        .max()
        .map_or(0, |m| (m + 1).max(0) as usize);
    let mut corners: Vec<Vec<usize>> = vec![Vec::new(); n_lakes];
    for (c, t) in mesh.corner_regions.rows().into_iter().enumerate() {
        let mut seen: [i32; 3] = [-1; 3];
        for (k, &r) in t.iter().enumerate() {
            let id = ids[r as usize];
            if id >= 0 && kind[r as usize] == water::LAKE && !seen.contains(&id) {
                corners[id as usize].push(c);
                seen[k] = id;
            }
        }
    }
    let mut out = Vec::new();
    for (id, list) in corners.iter().enumerate() {
        let inside = |r: usize| kind[r] == water::LAKE && ids[r] == id as i32;
        let surface_m = surface
            .as_ref()
            .and_then(|s| s.get(id))
            .map(|&e| crate::heights::metres(e, meta));
        for p in region_polygons_over(mesh, counts, list.iter().copied(), inside) {
            let props = json!({ "kind": "lake", "lake": id, "surface_m": surface_m });
            out.push(feature(polygon(&p), props));
        }
    }
    Ok(out)
}

fn river_features(world: &World) -> Result<Vec<Value>, ExportError> {
    let mesh = world.mesh()?;
    let meta = &world.meta;
    let offsets = world.offsets("rivers")?;
    let corners: Vec<u32> = world.view::<u32>("rivers")?.iter().copied().collect();
    let ragged = |name: &str| -> Result<Option<Vec<f32>>, ExportError> {
        if !world.has_layer(name) {
            return Ok(None);
        }
        let v: Vec<f32> = world.view::<f32>(name)?.iter().copied().collect();
        Ok((v.len() == corners.len()).then_some(v))
    };
    let flow = ragged("river_flow")?;
    let width = ragged("river_width")?;
    let metres_per_unit = meta.world_size_m / meta.width;
    let mut out = Vec::new();
    for (idx, w) in offsets.windows(2).enumerate() {
        let (s, e) = (w[0] as usize, w[1] as usize);
        if e < s + 2 || e > corners.len() {
            continue;
        }
        let mut coords = Vec::with_capacity(e - s);
        for &c in &corners[s..e] {
            let c = c as usize;
            if c >= mesh.n_corners() {
                return Err(orogen_world::WorldError::BadLayer {
                    name: "rivers".into(),
                    problem: format!("corner id {c} out of range"),
                }
                .into());
            }
            coords.push(lon_lat(
                meta,
                mesh.corner_xy[[c, 0]],
                mesh.corner_xy[[c, 1]],
            ));
        }
        let flow = flow.as_ref().map(|f| f[s..e].to_vec());
        let width_m: Option<Vec<f64>> = width.as_ref().map(|v| {
            v[s..e]
                .iter()
                .map(|&x| f64::from(x) * metres_per_unit)
                .collect()
        });
        let max_flow = flow
            .as_ref()
            .map(|f| f.iter().copied().fold(0.0f32, f32::max));
        let props = json!({
            "kind": "river",
            "river": idx,
            "flow": flow,
            "width_m": width_m,
            "max_flow": max_flow,
        });
        out.push(feature(
            json!({ "type": "LineString", "coordinates": coords }),
            props,
        ));
    }
    Ok(out)
}

/// Writes `world.geojson` (compact JSON).
pub fn write_geojson(w: &mut dyn Write, world: &World) -> Result<(), ExportError> {
    let value = feature_collection(world)?;
    serde_json::to_writer(&mut *w, &value).map_err(|e| ExportError::encode(FILE, e))?;
    w.write_all(b"\n").map_err(crate::atomic::io(FILE))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array1;
    use orogen_world::{Csr, Domain, Layer};

    /// Checks RFC 7946 rings: closed, at least four positions, outer counter-clockwise (positive
    /// shoelace in lon/lat), holes clockwise. Returns the polygon's signed area in degrees^2.
    fn check_polygon(rings: &Value) -> f64 {
        let rings = rings.as_array().unwrap();
        let mut area = 0.0;
        for (i, ring) in rings.iter().enumerate() {
            let pts: Vec<[f64; 2]> = ring
                .as_array()
                .unwrap()
                .iter()
                .map(|p| [p[0].as_f64().unwrap(), p[1].as_f64().unwrap()])
                .collect();
            assert!(pts.len() >= 4);
            assert_eq!(pts[0], pts[pts.len() - 1], "ring closed");
            let a = shoelace2(&pts[..pts.len() - 1]) / 2.0;
            if i == 0 {
                assert!(a > 0.0, "outer ring counter-clockwise");
            } else {
                assert!(a < 0.0, "hole clockwise");
            }
            area += a;
        }
        area
    }

    fn world() -> World {
        let mesh = DualMesh::jittered_grid(30, 30, 1.0, 1.0, 0.5, 9);
        let n = mesh.n_regions();
        // Land: a ring around (0.3, 0.3) (radius 0.1 ..= 0.25) with a lake inside it, and an
        // island in the south-east; the rest is ocean.
        let d = |r: usize, cx: f64, cy: f64| {
            (mesh.region_xy[[r, 0]] - cx).hypot(mesh.region_xy[[r, 1]] - cy)
        };
        let kind: Array1<u8> = (0..n)
            .map(|r| match d(r, 0.3, 0.3) {
                x if x < 0.1 => water::LAKE,
                x if x < 0.25 => water::LAND,
                _ if d(r, 0.8, 0.8) < 0.1 => water::LAND,
                _ => water::OCEAN,
            })
            .collect();
        let biome: Array1<u8> = kind
            .iter()
            .zip(mesh.region_xy.rows())
            .map(|(&k, p)| match k {
                water::OCEAN => Biome::Ocean.id(),
                water::LAKE => Biome::Lake.id(),
                _ if p[0] < 0.3 => Biome::Forest.id(),
                _ => Biome::Grassland.id(),
            })
            .collect();
        let river: Vec<u32> = (0..mesh.n_corners() as u32)
            .filter(|&c| (mesh.corner_xy[[c as usize, 1]] - 0.5).abs() < 0.01)
            .take(5)
            .collect();
        let mut w = World::new(WorldMeta::default());
        w.set_mesh(mesh).unwrap();
        w.set_layer("region_water", Domain::Region, kind.into_dyn())
            .unwrap();
        w.set_layer("region_biome", Domain::Region, biome.into_dyn())
            .unwrap();
        let k = river.len();
        w.insert_layer(
            "rivers",
            Layer::ragged_indices(Domain::Free, Domain::Corner, Csr::from_lists(&[river])),
        )
        .unwrap();
        let offsets = Array1::from(vec![0u32, k as u32]);
        let flow = Array1::from((1..=k).map(|v| v as f32).collect::<Vec<_>>());
        let width = Array1::from(vec![0.001f32; k]);
        w.insert_layer(
            "river_flow",
            Layer::ragged(Domain::Free, offsets.clone(), flow.into_dyn()),
        )
        .unwrap();
        w.insert_layer(
            "river_width",
            Layer::ragged(Domain::Free, offsets, width.into_dyn()),
        )
        .unwrap();
        let xy = ndarray::array![[0.1, 0.1], [0.9, 0.5]];
        w.set_layer("flora_xy", Domain::Free, xy.into_dyn())
            .unwrap();
        w.set_values("flora_species", Domain::Free, vec![3u32, 4])
            .unwrap();
        w
    }

    #[test]
    fn geographic_coordinates_put_north_up() {
        let meta = WorldMeta::default();
        let nw = lon_lat(&meta, 0.0, 0.0);
        assert!(nw[0] < 0.0 && nw[1] > 0.0);
        assert_eq!(lon_lat(&meta, 0.5, 0.5), [0.0, 0.0]);
        let se = lon_lat(&meta, 1.0, 1.0);
        assert!((se[0] - 50_000.0 / METRES_PER_DEGREE).abs() < 1e-12);
        assert!((se[1] + 50_000.0 / METRES_PER_DEGREE).abs() < 1e-12);
    }

    #[test]
    fn region_unions_tile_the_map_and_keep_holes() {
        let w = world();
        let mesh = w.mesh().unwrap();
        let all = region_polygons(mesh, |_| true);
        assert_eq!(all.len(), 1);
        assert!(all[0].holes.is_empty());
        assert!(
            (shoelace2(&all[0].outer) / 2.0 - 1.0).abs() < 1e-12,
            "the whole map"
        );
        let kind = w.view1::<u8>("region_water").unwrap();
        let area = |ps: &[MapPolygon]| -> f64 {
            ps.iter()
                .map(|p| {
                    (shoelace2(&p.outer) + p.holes.iter().map(|h| shoelace2(h)).sum::<f64>()) / 2.0
                })
                .sum()
        };
        let land = region_polygons(mesh, |r| kind[r] == water::LAND);
        let lake = region_polygons(mesh, |r| kind[r] == water::LAKE);
        let ocean = region_polygons(mesh, |r| kind[r] == water::OCEAN);
        assert_eq!(land.len(), 2, "the ring and the island");
        assert_eq!(
            land.iter().map(|p| p.holes.len()).sum::<usize>(),
            1,
            "the lake"
        );
        assert_eq!(lake.len(), 1);
        assert_eq!(ocean.len(), 1);
        assert_eq!(ocean[0].holes.len(), 2, "both land masses");
        assert!((area(&land) + area(&lake) + area(&ocean) - 1.0).abs() < 1e-9);
        // The lake's hole in the land is exactly the lake.
        let hole = land.iter().flat_map(|p| &p.holes).next().unwrap();
        assert!((shoelace2(hole) + shoelace2(&lake[0].outer)).abs() < 1e-12);
    }

    #[test]
    fn features_read_back_as_rfc7946() {
        let w = world();
        let mut bytes = Vec::new();
        write_geojson(&mut bytes, &w).unwrap();
        let v: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(v["type"], "FeatureCollection");
        let features = v["features"].as_array().unwrap();
        let of = |k: &'static str| {
            features
                .iter()
                .filter(move |f| f["properties"]["kind"] == k)
        };
        assert_eq!(of("land").count(), 2);
        assert_eq!(of("lake").count(), 1);
        let mut total = 0.0;
        for f in of("land").chain(of("lake")) {
            assert_eq!(f["geometry"]["type"], "Polygon");
            check_polygon(&f["geometry"]["coordinates"]);
        }
        let biomes: Vec<_> = of("biome").collect();
        assert_eq!(biomes.len(), 4, "ocean, lake, grassland, forest");
        for f in &biomes {
            assert_eq!(f["geometry"]["type"], "MultiPolygon");
            for p in f["geometry"]["coordinates"].as_array().unwrap() {
                total += check_polygon(p);
            }
        }
        let side = 100_000.0 / METRES_PER_DEGREE;
        assert!(
            (total - side * side).abs() < 1e-9 * side * side,
            "biomes tile the map"
        );
        // The forest (west of x = 0.3 in the north-west ring) lies north-west of the centre.
        let forest = biomes
            .iter()
            .find(|f| f["properties"]["biome"] == "forest")
            .unwrap();
        let pts = forest["geometry"]["coordinates"][0][0].as_array().unwrap();
        let lon: f64 = pts.iter().map(|p| p[0].as_f64().unwrap()).sum::<f64>() / pts.len() as f64;
        let lat: f64 = pts.iter().map(|p| p[1].as_f64().unwrap()).sum::<f64>() / pts.len() as f64;
        assert!(lon < 0.0 && lat > 0.0);
        let river: Vec<_> = of("river").collect();
        assert_eq!(river.len(), 1);
        assert_eq!(river[0]["geometry"]["type"], "LineString");
        assert_eq!(
            river[0]["geometry"]["coordinates"]
                .as_array()
                .unwrap()
                .len(),
            5
        );
        assert_eq!(river[0]["properties"]["flow"][4], 5.0);
        assert!((river[0]["properties"]["width_m"][0].as_f64().unwrap() - 100.0).abs() < 1e-3);
        let flora: Vec<_> = of("flora").collect();
        assert_eq!(flora.len(), 2);
        assert_eq!(flora[0]["geometry"]["type"], "Point");
        assert_eq!(flora[1]["properties"]["species"], 4);
        let p = &flora[0]["geometry"]["coordinates"];
        assert!(p[0].as_f64().unwrap() < 0.0 && p[1].as_f64().unwrap() > 0.0);
    }

    #[test]
    fn lakes_carry_their_id_and_surface() {
        let mut w = world();
        let kind = w.view1::<u8>("region_water").unwrap().to_owned();
        let ids: Array1<i32> = kind.mapv(|k| if k == water::LAKE { 0 } else { -1 });
        w.set_layer("region_lake", Domain::Region, ids.into_dyn())
            .unwrap();
        w.set_values("lake_surface", Domain::Free, vec![0.05f32])
            .unwrap();
        let v = feature_collection(&w).unwrap();
        let lakes: Vec<_> = v["features"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["properties"]["kind"] == "lake")
            .collect();
        assert_eq!(lakes.len(), 1);
        assert_eq!(lakes[0]["properties"]["lake"], 0);
        assert!((lakes[0]["properties"]["surface_m"].as_f64().unwrap() - 100.0).abs() < 1e-3);
        // The same ring as without lake ids.
        let plain = feature_collection(&world()).unwrap();
        let plain_lake = plain["features"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["properties"]["kind"] == "lake")
            .unwrap();
        assert_eq!(plain_lake["geometry"], lakes[0]["geometry"]);
    }
}
