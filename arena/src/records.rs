//! Where the arena keeps finished games' records: a folder by default, or any object store the
//! `object_store` crate reaches (`s3://bucket/prefix` for S3 and S3-compatible servers,
//! `file:///path` for a local one through the same code), so that servers and workers on
//! several machines can share them. A record is always written to a local file while its game
//! plays (the referee writes it line by line, so a crash loses at most the line in flight);
//! an object store receives it whole when the game ends, and the database keeps where it is.

use object_store::path::Path as Key;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The records of an arena.
#[derive(Clone, Debug)]
pub struct Records {
    /// Records being written, and with no object store, the records themselves.
    folder: PathBuf,
    objects: Option<Objects>,
}

/// An object store and where in it the records go.
#[derive(Clone, Debug)]
struct Objects {
    store: Arc<dyn ObjectStore>,
    /// The prefix records are put under, inside the store.
    prefix: Key,
    /// The store's URL as given, without a trailing `/`: a record's location is this, `/` and
    /// its name.
    url: String,
}

impl Records {
    /// Records kept as files in `folder`.
    pub fn folder(folder: &Path) -> Records {
        Records { folder: folder.to_path_buf(), objects: None }
    }

    /// Records spooled in `folder` while their games play and kept in the object store at
    /// `url` (`s3://bucket/prefix`, configured by the usual `AWS_*` variables, `AWS_ENDPOINT`
    /// and `AWS_ALLOW_HTTP` for an S3-compatible server; or `file:///absolute/path`).
    pub fn object_store(folder: &Path, url: &str) -> Result<Records, String> {
        let parsed = url::Url::parse(url).map_err(|e| format!("record store {url}: {e}"))?;
        // The builders read their settings from options; the environment's AWS_* variables
        // are the usual place for S3's.
        let options = std::env::vars()
            .filter(|(k, _)| k.starts_with("AWS_"))
            .map(|(k, v)| (k.to_ascii_lowercase(), v));
        let (store, prefix) = object_store::parse_url_opts(&parsed, options)
            .map_err(|e| format!("record store {url}: {e}"))?;
        let objects =
            Objects { store: Arc::from(store), prefix, url: url.trim_end_matches('/').to_string() };
        Ok(Records { folder: folder.to_path_buf(), objects: Some(objects) })
    }

    /// Creates the local folder.
    pub fn prepare(&self) -> Result<(), String> {
        std::fs::create_dir_all(&self.folder)
            .map_err(|e| format!("cannot create {}: {e}", self.folder.display()))
    }

    /// The file game `game`'s record is written to while it plays.
    pub fn spool(&self, game: i64) -> PathBuf {
        self.folder.join(name(game))
    }

    /// Keeps the finished record of `game` (written to [`Records::spool`]); where it is kept,
    /// as the database stores it.
    pub async fn keep(&self, game: i64) -> Result<String, String> {
        let spool = self.spool(game);
        let Some(objects) = &self.objects else { return Ok(spool.display().to_string()) };
        let text = tokio::fs::read(&spool)
            .await
            .map_err(|e| format!("cannot read {}: {e}", spool.display()))?;
        let location = objects.put(game, text).await?;
        // Kept in the store: the spool's copy is not needed, and a folder of spools would grow
        // without end on a long-lived server.
        let _ = tokio::fs::remove_file(&spool).await;
        Ok(location)
    }

    /// Keeps `text` as game `game`'s record (a record that reached the server whole: a
    /// worker's); where it is kept. A file is written beside its final name and renamed, so a
    /// crash leaves no half record under it.
    pub async fn keep_text(&self, game: i64, text: &str) -> Result<String, String> {
        if let Some(objects) = &self.objects {
            return objects.put(game, text.as_bytes().to_vec()).await;
        }
        let path = self.spool(game);
        let part = self.folder.join(format!("{}.part", name(game)));
        tokio::fs::write(&part, text)
            .await
            .map_err(|e| format!("cannot write {}: {e}", part.display()))?;
        tokio::fs::rename(&part, &path)
            .await
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(path.display().to_string())
    }

    /// The record kept at `location` as a local file to read: the file itself, or for an
    /// object a copy fetched into a temporary file (removed when the answer is dropped).
    pub async fn local(&self, location: &str) -> Result<Local, String> {
        let Some(key) = self.objects.as_ref().and_then(|o| o.key_of(location)) else {
            if location.contains("://") {
                return Err(format!("{location}: not in this arena's record store"));
            }
            return Ok(Local { path: PathBuf::from(location), temporary: false });
        };
        let objects = self.objects.as_ref().expect("a key is of the object store");
        let got = objects.store.get(&key).await.map_err(|e| format!("{location}: {e}"))?;
        let bytes = got.bytes().await.map_err(|e| format!("{location}: {e}"))?;
        let path = self.folder.join(format!(
            "fetched-{}-{}",
            std::process::id(),
            crate::token::random_seed().map_err(|e| format!("no random name: {e}"))?
        ));
        tokio::fs::write(&path, &bytes)
            .await
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(Local { path, temporary: true })
    }
}

impl Objects {
    async fn put(&self, game: i64, bytes: Vec<u8>) -> Result<String, String> {
        let key = self.prefix.clone().join(name(game));
        self.store
            .put(&key, PutPayload::from(bytes))
            .await
            .map_err(|e| format!("cannot keep the record of game {game} in {}: {e}", self.url))?;
        Ok(format!("{}/{}", self.url, name(game)))
    }

    /// The key of a location this store gave, or `None` for any other.
    fn key_of(&self, location: &str) -> Option<Key> {
        let rest = location.strip_prefix(&self.url)?.strip_prefix('/')?;
        // Only a name this store gives: nothing in a location may climb out of its prefix.
        let game: i64 = rest.strip_prefix("game-")?.strip_suffix(".jsonl")?.parse().ok()?;
        Some(self.prefix.clone().join(name(game)))
    }
}

/// A record's file name.
fn name(game: i64) -> String {
    format!("game-{game}.jsonl")
}

/// A record as a local file.
#[derive(Debug)]
pub struct Local {
    path: PathBuf,
    temporary: bool,
}

impl Local {
    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Local {
    fn drop(&mut self) {
        if self.temporary {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Records;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("aluette-records-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[tokio::test]
    async fn a_folder_keeps_records_where_they_were_written() {
        let dir = scratch("folder");
        let r = Records::folder(&dir.join("records"));
        r.prepare().unwrap();
        std::fs::write(r.spool(7), "line\n").unwrap();
        let at = r.keep(7).await.unwrap();
        assert_eq!(std::fs::read_to_string(&at).unwrap(), "line\n");
        let posted = r.keep_text(8, "posted\n").await.unwrap();
        let local = r.local(&posted).await.unwrap();
        assert_eq!(std::fs::read_to_string(local.path()).unwrap(), "posted\n");
        assert!(r.local("s3://elsewhere/game-1.jsonl").await.is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The object store path, through object_store's own local file system store: a record is
    /// put whole, its spool removed, and read back by its location; a location naming anything
    /// but one of its records is refused.
    #[tokio::test]
    async fn an_object_store_receives_each_record_whole() {
        let dir = scratch("objects");
        let bucket = dir.join("bucket");
        std::fs::create_dir_all(&bucket).unwrap();
        let url = format!("file://{}/arena", bucket.display());
        let r = Records::object_store(&dir.join("spool"), &url).unwrap();
        r.prepare().unwrap();
        std::fs::write(r.spool(7), "a\nb\n").unwrap();
        let at = r.keep(7).await.unwrap();
        assert_eq!(at, format!("{url}/game-7.jsonl"));
        assert!(!r.spool(7).exists(), "the spool is removed once kept");
        assert_eq!(std::fs::read_to_string(bucket.join("arena/game-7.jsonl")).unwrap(), "a\nb\n");
        let posted = r.keep_text(8, "posted\n").await.unwrap();
        let fetched = r.local(&posted).await.unwrap();
        assert_eq!(std::fs::read_to_string(fetched.path()).unwrap(), "posted\n");
        let copy = fetched.path().to_path_buf();
        drop(fetched);
        assert!(!copy.exists(), "a fetched copy is removed when dropped");
        for bad in [
            format!("{url}/../secret"),
            format!("{url}/game-7.jsonl/../../x"),
            format!("{url}x/game-7.jsonl"),
            "s3://other/game-7.jsonl".to_string(),
        ] {
            assert!(r.local(&bad).await.is_err(), "{bad}");
        }
        assert!(Records::object_store(&dir, "nonsense").is_err());
        assert!(Records::object_store(&dir, "ftp://host/x").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
