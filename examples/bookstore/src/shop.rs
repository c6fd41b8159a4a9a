//! The shop's types, written once and placed in different modules by each variant (the
//! macros expand where they are invoked, so `#[profile]` reports the variant's module as the
//! package). `$cost` is the work (≈ µs) of the variant's hot method.

/// `Catalog`: search and ranking.
#[macro_export]
macro_rules! define_catalog {
    () => {
        #[derive(Debug)]
        pub struct Catalog {
            pub titles: Vec<String>,
        }

        #[highrise_agent::profile]
        impl Catalog {
            pub fn new(size: usize) -> Self {
                Self {
                    titles: (0..size)
                        .map(|i| format!("book {i} volume {}", i % 7))
                        .collect(),
                }
            }

            pub fn search(&self, query: &str) -> Vec<u32> {
                let mut hits: Vec<u32> = self
                    .titles
                    .iter()
                    .enumerate()
                    .filter(|(_, title)| title.ends_with(query))
                    .map(|(index, _)| index as u32)
                    .take(20)
                    .collect();
                self.rank(&mut hits);
                hits
            }

            fn rank(&self, hits: &mut [u32]) {
                $crate::work::burn(20);
                hits.sort_unstable_by_key(|id| std::cmp::Reverse(*id));
            }
        }
    };
}

/// `Cart`: items and totals.
#[macro_export]
macro_rules! define_cart {
    () => {
        #[derive(Debug, Default)]
        pub struct Cart {
            pub items: Vec<u32>,
        }

        #[highrise_agent::profile]
        impl Cart {
            pub fn add(&mut self, id: u32) {
                $crate::work::burn(5);
                self.items.push(id);
            }

            pub fn total(&self, prices: &[u64]) -> u64 {
                prices.iter().sum()
            }

            pub fn clear(&mut self) {
                self.items.clear();
            }
        }
    };
}

/// `PriceEngine`: the hot method `quote` costs `$cost` units per item.
#[macro_export]
macro_rules! define_pricing {
    ($cost:expr) => {
        #[derive(Debug, Default)]
        pub struct PriceEngine {
            pub quotes: u64,
        }

        #[highrise_agent::profile]
        impl PriceEngine {
            pub fn quote(&mut self, items: &[u32]) -> Vec<u64> {
                self.quotes += 1;
                items
                    .iter()
                    .map(|&id| {
                        ($crate::work::burn($cost) % 100) + u64::from(id % 50) + self.discount(id)
                    })
                    .collect()
            }

            fn discount(&self, id: u32) -> u64 {
                u64::from(id % 3)
            }
        }
    };
}
