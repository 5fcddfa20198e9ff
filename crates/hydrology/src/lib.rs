//! Water on orogen worlds. [`graph`]: rivers on the dual mesh (or any graph in CSR form).

pub mod graph;
