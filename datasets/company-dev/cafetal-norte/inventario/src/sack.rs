//! Green coffee sacks in the warehouse: stock levels and when to reorder.

use std::collections::HashMap;

/// A sack of green coffee as it sits in the warehouse.
#[derive(Debug, Clone)]
pub struct Sack {
    pub lot: String,
    pub origin: String,
    pub weight_kg: f32,
}

/// Minimum kilos of green coffee per origin before a new order is placed.
/// Ethiopia and Rwanda take longer to arrive, so their point is higher.
pub fn reorder_point(origin: &str) -> f32 {
    match origin {
        "Etiopía" | "Ruanda" => 420.0,
        "Brasil" => 600.0,
        _ => 300.0,
    }
}

/// Kilos in stock per origin.
pub fn stock_by_origin(sacks: &[Sack]) -> HashMap<String, f32> {
    let mut stock = HashMap::new();
    for sack in sacks {
        *stock.entry(sack.origin.clone()).or_insert(0.0) += sack.weight_kg;
    }
    stock
}

/// Origins whose stock is under their reorder point, sorted by name.
pub fn needs_reorder(sacks: &[Sack]) -> Vec<String> {
    let mut low: Vec<String> = stock_by_origin(sacks)
        .into_iter()
        .filter(|(origin, kg)| *kg < reorder_point(origin))
        .map(|(origin, _)| origin)
        .collect();
    low.sort();
    low
}

/// Roasting loses weight: 1 kg of green coffee gives about 0.84 kg roasted.
pub const ROAST_YIELD: f32 = 0.84;

pub fn roasted_kg(green_kg: f32) -> f32 {
    green_kg * ROAST_YIELD
}
