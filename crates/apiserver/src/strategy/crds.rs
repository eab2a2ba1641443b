//! CustomResourceDefinitions: checked and given their accepted names and conditions on
//! every write (`crd::prepare`), and kept by their cleanup finalizer until their custom
//! resources are gone, whatever updates did to their finalizers before.

use serde_json::Value;

use super::super::auth::User;
use super::super::crd;
use super::super::object;
use super::super::status::ApiError;
use super::Strategy;

/// The CustomResourceDefinition strategy.
pub struct CustomResourceDefinitions;

impl Strategy for CustomResourceDefinitions {
    fn finish_create(&self, object: &mut Value, _user: Option<&User>) -> Result<(), ApiError> {
        crd::prepare(object)
    }

    fn finish_update(&self, _old: &Value, next: &mut Value) -> Result<(), ApiError> {
        crd::prepare(next)?;
        if object::deletion_timestamp(next).is_some() {
            crd::set_terminating(next);
        }
        Ok(())
    }

    fn deletion_finalizer(&self) -> Option<&'static str> {
        Some(crd::CLEANUP_FINALIZER)
    }

    fn on_delete(&self, object: &mut Value) {
        crd::set_terminating(object);
    }
}
