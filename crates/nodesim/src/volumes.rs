//! What each of a Pod's volumes holds, computed without I/O from the Secrets and
//! ConfigMaps it reads, the Pod's fields and its tokens, as kubelet's volume plugins
//! compute their payloads: `secret`, `configMap` (every key, or `items` with their paths
//! and modes; `defaultMode`; `optional`), `downwardAPI`, and `projected` (the same, plus
//! `serviceAccountToken`). `emptyDir` holds nothing to begin with. The files are written by
//! [`super::atomic_writer`] (see [`super::pod_volumes`]).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, DownwardAPIVolumeFile, KeyToPath, Volume};

use super::atomic_writer::{File, Payload};
use super::downward::{self, FieldError, PodFields};
use super::sources::{Kind, SourceError, Sources};

/// The mode of a volume's files when it names none (the API server's default, 0644).
const DEFAULT_MODE: i32 = 0o644;

/// How a volume is made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// Files written by the atomic writer.
    Files(Payload),
    /// An empty directory the containers write (`emptyDir`).
    Empty,
    /// A kind of volume the dev cluster does not provide: an empty directory stands in.
    Unsupported(&'static str),
}

/// Why a volume cannot be set up (kubelet: `MountVolume.SetUp failed`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VolumeError {
    /// A Secret or ConfigMap (or key) is missing and not optional.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// A downward API item cannot be read.
    #[error("downward API item {path}")]
    Field {
        /// The item's path.
        path: String,
        /// The cause.
        #[source]
        source: FieldError,
    },
    /// A token is not there (yet).
    #[error("no token for audience {0:?}")]
    Token(String),
}

/// A token a projected volume asks for: audience (empty for the API server's) and lifetime.
pub type TokenKey = (String, i64);

/// The lifetime kubelet asks for when a projection names none (an hour).
pub const DEFAULT_TOKEN_SECONDS: i64 = 3600;

/// The tokens the Pod's projected volumes ask for.
pub fn token_keys(volumes: &[Volume]) -> Vec<TokenKey> {
    let mut keys: Vec<TokenKey> = volumes
        .iter()
        .filter_map(|v| v.projected.as_ref())
        .flat_map(|p| p.sources.iter().flatten())
        .filter_map(|s| s.service_account_token.as_ref())
        .map(|t| (t.audience.clone().unwrap_or_default(), t.expiration_seconds.unwrap_or(DEFAULT_TOKEN_SECONDS)))
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

/// What a volume's content is read from.
pub struct VolumeContext<'a> {
    /// The Pod's fields.
    pub pod: &'a PodFields,
    /// The Pod's containers (for `resourceFieldRef`).
    pub containers: &'a [Container],
    /// The Secrets and ConfigMaps it reads.
    pub sources: &'a Sources,
    /// The tokens issued for its projections.
    pub tokens: &'a BTreeMap<TokenKey, String>,
}

fn mode(mode: Option<i32>, default: i32) -> u32 {
    u32::try_from(mode.unwrap_or(default)).unwrap_or(0o644) & 0o7777
}

impl VolumeContext<'_> {
    /// The content of `volume`.
    pub fn content(&self, volume: &Volume) -> Result<Content, VolumeError> {
        let mut payload = Payload::new();
        if let Some(secret) = &volume.secret {
            let default = secret.default_mode.unwrap_or(DEFAULT_MODE);
            let name = secret.secret_name.as_deref().unwrap_or_default();
            self.add_keys(&mut payload, Kind::Secret, name, secret.items.as_deref(), secret.optional, default)?;
        } else if let Some(config_map) = &volume.config_map {
            let default = config_map.default_mode.unwrap_or(DEFAULT_MODE);
            let (name, items, optional) = (&config_map.name, config_map.items.as_deref(), config_map.optional);
            self.add_keys(&mut payload, Kind::ConfigMap, name, items, optional, default)?;
        } else if let Some(downward) = &volume.downward_api {
            let default = downward.default_mode.unwrap_or(DEFAULT_MODE);
            self.add_fields(&mut payload, downward.items.as_deref(), default)?;
        } else if let Some(projected) = &volume.projected {
            let default = projected.default_mode.unwrap_or(DEFAULT_MODE);
            for source in projected.sources.iter().flatten() {
                if let Some(s) = &source.secret {
                    self.add_keys(&mut payload, Kind::Secret, &s.name, s.items.as_deref(), s.optional, default)?;
                } else if let Some(c) = &source.config_map {
                    self.add_keys(&mut payload, Kind::ConfigMap, &c.name, c.items.as_deref(), c.optional, default)?;
                } else if let Some(d) = &source.downward_api {
                    self.add_fields(&mut payload, d.items.as_deref(), default)?;
                } else if let Some(t) = &source.service_account_token {
                    let audience = t.audience.clone().unwrap_or_default();
                    let key = (audience.clone(), t.expiration_seconds.unwrap_or(DEFAULT_TOKEN_SECONDS));
                    let token = self.tokens.get(&key).ok_or(VolumeError::Token(audience))?;
                    payload
                        .insert(t.path.clone(), File { data: token.clone().into_bytes(), mode: mode(None, default) });
                }
            }
        } else if volume.empty_dir.is_some() {
            return Ok(Content::Empty);
        } else {
            return Ok(Content::Unsupported(unsupported_kind(volume)));
        }
        Ok(Content::Files(payload))
    }

    /// A Secret's or ConfigMap's keys (all, or `items`) into the payload.
    fn add_keys(
        &self,
        payload: &mut Payload,
        kind: Kind,
        name: &str,
        items: Option<&[KeyToPath]>,
        optional: Option<bool>,
        default: i32,
    ) -> Result<(), VolumeError> {
        let optional = optional == Some(true);
        let Some(data) = self.sources.get(kind, name) else {
            return if optional { Ok(()) } else { Err(SourceError::NotFound { kind, name: name.to_string() }.into()) };
        };
        let Some(items) = items.filter(|items| !items.is_empty()) else {
            for (key, value) in data {
                payload.insert(key.clone(), File { data: value.clone(), mode: mode(None, default) });
            }
            return Ok(());
        };
        for item in items {
            match data.get(&item.key) {
                Some(value) => {
                    payload.insert(item.path.clone(), File { data: value.clone(), mode: mode(item.mode, default) });
                }
                None if optional => {}
                None => {
                    return Err(SourceError::NoKey {
                        kind,
                        namespace: self.pod.namespace.clone(),
                        name: name.to_string(),
                        key: item.key.clone(),
                    }
                    .into());
                }
            }
        }
        Ok(())
    }

    /// Downward API items into the payload.
    fn add_fields(
        &self,
        payload: &mut Payload,
        items: Option<&[DownwardAPIVolumeFile]>,
        default: i32,
    ) -> Result<(), VolumeError> {
        for item in items.into_iter().flatten() {
            let field_error = |source| VolumeError::Field { path: item.path.clone(), source };
            let value = if let Some(field) = &item.field_ref {
                self.pod.field(&field.field_path).map_err(field_error)?
            } else if let Some(resource) = &item.resource_field_ref {
                let first = self.containers.first().ok_or_else(|| field_error(FieldError::Container(String::new())))?;
                downward::resource(resource, first, self.containers).map_err(field_error)?
            } else {
                continue;
            };
            payload.insert(item.path.clone(), File { data: value.into_bytes(), mode: mode(item.mode, default) });
        }
        Ok(())
    }
}

/// The name of a volume source the dev cluster does not provide.
fn unsupported_kind(volume: &Volume) -> &'static str {
    if volume.host_path.is_some() {
        "hostPath"
    } else if volume.persistent_volume_claim.is_some() {
        "persistentVolumeClaim"
    } else if volume.csi.is_some() {
        "csi"
    } else if volume.ephemeral.is_some() {
        "ephemeral"
    } else {
        "this kind of"
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn data(pairs: &[(&str, &str)]) -> Option<crate::sources::Data> {
        Some(pairs.iter().map(|(k, v)| (k.to_string(), v.as_bytes().to_vec())).collect())
    }

    fn files(content: Content) -> Vec<(String, String, u32)> {
        let Content::Files(payload) = content else { panic!("{content:?}") };
        payload.into_iter().map(|(p, f)| (p, String::from_utf8(f.data).unwrap(), f.mode)).collect()
    }

    fn volume(value: serde_json::Value) -> Volume {
        serde_json::from_value(value).unwrap()
    }

    fn with_context<T>(check: impl FnOnce(&VolumeContext<'_>) -> T) -> T {
        let sources = Sources::of([
            ((Kind::Secret, "creds".to_string()), data(&[("user", "admin"), ("pass", "s3cret")])),
            ((Kind::ConfigMap, "kube-root-ca.crt".to_string()), data(&[("ca.crt", "CA")])),
            ((Kind::ConfigMap, "absent".to_string()), None),
        ]);
        let pod = PodFields::test();
        let containers: Vec<Container> = vec![serde_json::from_value(json!({"name": "c"})).unwrap()];
        let tokens = [(("".to_string(), 3607), "tok".to_string())].into();
        check(&VolumeContext { pod: &pod, containers: &containers, sources: &sources, tokens: &tokens })
    }

    #[test]
    fn a_secret_volume_holds_every_key_or_the_items_with_their_paths_and_modes() {
        with_context(|context| {
            let all = volume(json!({"name": "v", "secret": {"secretName": "creds", "defaultMode": 0o400}}));
            let all = files(context.content(&all).unwrap());
            assert_eq!(all, [("pass".into(), "s3cret".into(), 0o400), ("user".into(), "admin".into(), 0o400)]);
            let items = volume(json!({"name": "v", "secret": {"secretName": "creds",
                "items": [{"key": "user", "path": "sub/u", "mode": 0o600}]}}));
            assert_eq!(files(context.content(&items).unwrap()), [("sub/u".into(), "admin".into(), 0o600)]);
        });
    }

    #[test]
    fn a_missing_source_fails_the_volume_unless_it_is_optional() {
        with_context(|context| {
            let missing = volume(json!({"name": "v", "configMap": {"name": "absent"}}));
            assert_eq!(context.content(&missing).unwrap_err().to_string(), "configmap \"absent\" not found");
            let optional = volume(json!({"name": "v", "configMap": {"name": "absent", "optional": true}}));
            assert_eq!(files(context.content(&optional).unwrap()), []);
            let no_key = volume(json!({"name": "v", "secret": {"secretName": "creds",
                "items": [{"key": "nope", "path": "x"}]}}));
            assert_eq!(context.content(&no_key).unwrap_err().to_string(), "couldn't find key nope in Secret ns1/creds");
        });
    }

    #[test]
    fn the_service_account_projection_holds_the_token_the_ca_and_the_namespace() {
        with_context(|context| {
            let projected =
                volume(json!({"name": "kube-api-access-x", "projected": {"defaultMode": 0o644, "sources": [
                    {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                    {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                    {"downwardAPI": {"items": [
                        {"path": "namespace", "fieldRef": {"fieldPath": "metadata.namespace"}},
                        {"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}},
                    ]}},
                ]}}));
            assert_eq!(
                files(context.content(&projected).unwrap()),
                [
                    ("ca.crt".into(), "CA".into(), 0o644),
                    ("labels".into(), "app=\"web\"".into(), 0o644),
                    ("namespace".into(), "ns1".into(), 0o644),
                    ("token".into(), "tok".into(), 0o644),
                ]
            );
            let other_audience = volume(json!({"name": "v", "projected": {"sources": [
                {"serviceAccountToken": {"audience": "vault", "path": "token"}}]}}));
            assert_eq!(context.content(&other_audience), Err(VolumeError::Token("vault".into())));
            assert_eq!(token_keys(&[projected, other_audience]), [("".into(), 3607), ("vault".into(), 3600)]);
        });
    }

    #[test]
    fn an_empty_dir_starts_empty_and_other_kinds_are_named_as_unsupported() {
        with_context(|context| {
            let empty = volume(json!({"name": "tmp", "emptyDir": {"medium": "Memory"}}));
            assert_eq!(context.content(&empty).unwrap(), Content::Empty);
            let host = volume(json!({"name": "h", "hostPath": {"path": "/etc"}}));
            assert_eq!(context.content(&host).unwrap(), Content::Unsupported("hostPath"));
        });
    }
}
