//! The product's sink: the aggregator (wired when `highrise-aggregate` lands).
