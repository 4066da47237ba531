//! Wire types and the line codec of the Aluette bot protocol.
