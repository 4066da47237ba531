//! Rebuilds the crate when a migration changes: `sqlx::migrate!` embeds the migrations folder
//! at compile time, and Cargo would not otherwise notice a new file in it.

fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
