//! A ConversionReview answered: each object of the request converted to the desired
//! version, in order, or — when any fails — a `Failure` naming why and no object, as
//! upstream's webhook (controller-runtime's) answers; the review's own `apiVersion`
//! (`apiextensions.k8s.io/v1` or `v1beta1`) and `uid` come back as they came.

use kube::core::Status;
use kube::core::conversion::{ConversionRequest, ConversionResponse, ConversionReview};

use fleetctl_api::addon::conversion::convert;

/// The answer to `review`.
pub fn answer(review: ConversionReview) -> ConversionReview {
    let mut request = match ConversionRequest::try_from(review) {
        Ok(request) => request,
        Err(e) => return ConversionResponse::invalid(Status::failure(&e.to_string(), "BadRequest")).into_review(),
    };
    let objects = std::mem::take(&mut request.objects);
    let desired = request.desired_api_version.clone();
    let response = ConversionResponse::for_request(request);
    let converted: Result<Vec<_>, _> = objects.into_iter().map(|object| convert(object, &desired)).collect();
    match converted {
        Ok(objects) => response.success(objects),
        Err(e) => {
            let why = fleetctl_kube::errors::chain(&e);
            tracing::warn!(error = %why, desired = %desired, "conversion refused");
            response.failure(Status::failure(&why, "BadRequest"))
        }
    }
    .into_review()
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn review(api_version: &str, desired: &str, objects: Vec<Value>) -> ConversionReview {
        serde_json::from_value(json!({
            "apiVersion": api_version, "kind": "ConversionReview",
            "request": {"uid": "u-1", "desiredAPIVersion": desired, "objects": objects},
        }))
        .unwrap()
    }

    fn addon(api_version: &str) -> Value {
        json!({"apiVersion": api_version, "kind": "ManagedClusterAddOn",
               "metadata": {"name": "search-collector", "namespace": "cluster1", "uid": "a-1"}, "spec": {}})
    }

    #[test]
    fn each_object_comes_back_in_the_desired_version_under_the_reviews_own_api_version_and_uid() {
        let objects = vec![addon("addon.open-cluster-management.io/v1alpha1"); 2];
        let answered =
            answer(review("apiextensions.k8s.io/v1beta1", "addon.open-cluster-management.io/v1beta1", objects));
        let answered = serde_json::to_value(answered).unwrap();
        assert_eq!(answered["apiVersion"], "apiextensions.k8s.io/v1beta1");
        assert_eq!(answered["response"]["uid"], "u-1");
        assert_eq!(answered["response"]["result"]["status"], "Success");
        let converted = answered["response"]["convertedObjects"].as_array().unwrap();
        assert_eq!(converted.len(), 2);
        assert!(converted.iter().all(|o| o["apiVersion"] == "addon.open-cluster-management.io/v1beta1"));
        assert_eq!(converted[0]["metadata"]["uid"], "a-1");
    }

    #[test]
    fn an_object_that_cannot_convert_fails_the_whole_review_with_its_reason() {
        let objects =
            vec![addon("addon.open-cluster-management.io/v1alpha1"), json!({"apiVersion": "v1", "kind": "Pod"})];
        let answered = answer(review("apiextensions.k8s.io/v1", "addon.open-cluster-management.io/v1beta1", objects));
        let answered = serde_json::to_value(answered).unwrap();
        assert_eq!(answered["response"]["result"]["status"], "Failure");
        assert!(answered["response"]["result"]["message"].as_str().is_some_and(|m| !m.is_empty()));
        assert_eq!(answered["response"]["convertedObjects"], json!([]));
    }

    #[test]
    fn a_review_without_a_request_is_answered_as_invalid() {
        let answered = answer(
            serde_json::from_value(json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview"}))
                .unwrap(),
        );
        assert!(answered.response.is_some_and(|r| r.result.is_failure()));
    }
}
