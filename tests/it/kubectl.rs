//! kubectl against `fleetctl dev serve`.
