//! The signatures of access tokens, checked with `ring`: the cryptography the server links for
//! TLS already (rustls on ring, see the crate's `Cargo.toml`).
//!
//! jsonwebtoken ships two back ends: aws-lc-rs, a C library built with cmake, and RustCrypto,
//! 31 crates (RSA, P-256, P-384, Ed25519, big integers) that took a tenth of a generated
//! crate's cold debug build. It takes any other through its `CryptoProvider`, and this is that
//! provider: verification only, for the algorithms a server accepts (RSA PKCS#1 v1.5 and PSS,
//! ECDSA P-256 and P-384, Ed25519). A server never signs a token, and HMAC is refused before a
//! key is looked for ([`super::resource`]); here it has no verifier either.

use jsonwebtoken::crypto::{CryptoProvider, JwtSigner, JwtVerifier, KeyUtils};
use jsonwebtoken::errors::{Error, ErrorKind};
use jsonwebtoken::jwk::ThumbprintHash;
use jsonwebtoken::{Algorithm, DecodingKey, DecodingKeyKind, EncodingKey};
use ring::signature::{self as ring_signature, RsaParameters, VerificationAlgorithm};

/// The provider: installed once, before the first token is checked ([`install`]).
static PROVIDER: CryptoProvider = CryptoProvider {
    signer_factory: no_signer,
    verifier_factory: verifier,
    key_utils: KeyUtils {
        rsa_pub_components_from_private_key: |_| Err(unsupported()),
        rsa_pub_components_from_public_key: |_| Err(unsupported()),
        ec_pub_components_from_private_key: |_, _| Err(unsupported()),
        ed_pub_components_from_private_key: |_, _| Err(unsupported()),
        compute_digest: digest,
    },
};

/// Makes [`PROVIDER`] jsonwebtoken's for this process (a second call changes nothing).
pub(crate) fn install() {
    // `Err` means a provider is installed already: this one, by an earlier call.
    let _ = PROVIDER.install_default();
}

fn unsupported() -> Error {
    ErrorKind::InvalidAlgorithm.into()
}

fn no_signer(_: &Algorithm, _: &EncodingKey) -> jsonwebtoken::errors::Result<Box<dyn JwtSigner>> {
    Err(unsupported())
}

fn digest(data: &[u8], hash: ThumbprintHash) -> jsonwebtoken::errors::Result<Vec<u8>> {
    let algorithm = match hash {
        ThumbprintHash::SHA256 => &ring::digest::SHA256,
        ThumbprintHash::SHA384 => &ring::digest::SHA384,
        ThumbprintHash::SHA512 => &ring::digest::SHA512,
        _ => return Err(unsupported()),
    };
    Ok(ring::digest::digest(algorithm, data).as_ref().to_vec())
}

/// How a key of one algorithm checks a signature.
enum Check {
    /// RSA from a JWK's modulus and exponent, or a DER `RSAPublicKey`.
    Rsa(&'static RsaParameters),
    /// ECDSA or Ed25519 over the public key's bytes (an uncompressed point, or the raw key).
    Raw(&'static dyn VerificationAlgorithm),
}

struct Verifier {
    algorithm: Algorithm,
    check: Check,
    key: DecodingKey,
}

fn verifier(
    algorithm: &Algorithm,
    key: &DecodingKey,
) -> jsonwebtoken::errors::Result<Box<dyn JwtVerifier>> {
    let check = match algorithm {
        Algorithm::RS256 => Check::Rsa(&ring_signature::RSA_PKCS1_2048_8192_SHA256),
        Algorithm::RS384 => Check::Rsa(&ring_signature::RSA_PKCS1_2048_8192_SHA384),
        Algorithm::RS512 => Check::Rsa(&ring_signature::RSA_PKCS1_2048_8192_SHA512),
        Algorithm::PS256 => Check::Rsa(&ring_signature::RSA_PSS_2048_8192_SHA256),
        Algorithm::PS384 => Check::Rsa(&ring_signature::RSA_PSS_2048_8192_SHA384),
        Algorithm::PS512 => Check::Rsa(&ring_signature::RSA_PSS_2048_8192_SHA512),
        Algorithm::ES256 => Check::Raw(&ring_signature::ECDSA_P256_SHA256_FIXED),
        Algorithm::ES384 => Check::Raw(&ring_signature::ECDSA_P384_SHA384_FIXED),
        Algorithm::EdDSA => Check::Raw(&ring_signature::ED25519),
        // HMAC (a shared secret) never verifies an access token here, and an algorithm added
        // to jsonwebtoken later is refused until it is added above.
        _ => return Err(unsupported()),
    };
    if key.family() != algorithm.family() {
        return Err(ErrorKind::InvalidKeyFormat.into());
    }
    Ok(Box::new(Verifier {
        algorithm: *algorithm,
        check,
        key: key.clone(),
    }))
}

impl jsonwebtoken::signature::Verifier<Vec<u8>> for Verifier {
    fn verify(
        &self,
        message: &[u8],
        signature: &Vec<u8>,
    ) -> Result<(), jsonwebtoken::signature::Error> {
        let checked = match (&self.check, self.key.kind()) {
            (Check::Rsa(parameters), DecodingKeyKind::RsaModulusExponent { n, e }) => {
                ring_signature::RsaPublicKeyComponents { n, e }
                    .verify(parameters, message, signature)
            }
            (Check::Rsa(parameters), DecodingKeyKind::SecretOrDer(der)) => {
                ring_signature::UnparsedPublicKey::new(*parameters, der).verify(message, signature)
            }
            (Check::Raw(algorithm), DecodingKeyKind::SecretOrDer(bytes)) => {
                ring_signature::UnparsedPublicKey::new(*algorithm, bytes).verify(message, signature)
            }
            (Check::Raw(_), DecodingKeyKind::RsaModulusExponent { .. }) => {
                return Err(jsonwebtoken::signature::Error::new());
            }
        };
        checked.map_err(|_| jsonwebtoken::signature::Error::new())
    }
}

impl JwtVerifier for Verifier {
    fn algorithm(&self) -> Algorithm {
        self.algorithm
    }
}

#[cfg(test)]
mod tests {
    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use jsonwebtoken::jwk::Jwk;
    use jsonwebtoken::{Algorithm, DecodingKey, Validation};
    use ring::rand::SystemRandom;
    use ring::signature::{self, KeyPair as _};
    use serde_json::{Value, json};

    /// A token for audience `me` with `alg` in its header, signed by `sign`.
    fn token(alg: &str, sign: impl Fn(&[u8]) -> Vec<u8>) -> String {
        let header = URL_SAFE_NO_PAD.encode(format!(r#"{{"alg":"{alg}","typ":"JWT"}}"#));
        let claims = URL_SAFE_NO_PAD.encode(r#"{"sub":"alice","aud":"me","exp":4102444800}"#);
        let message = format!("{header}.{claims}");
        format!(
            "{message}.{}",
            URL_SAFE_NO_PAD.encode(sign(message.as_bytes()))
        )
    }

    /// Does `token` verify with the key `jwk` describes, for `alg`?
    fn verifies(token: &str, jwk: Value, alg: Algorithm) -> bool {
        super::install();
        let jwk: Jwk = serde_json::from_value(jwk).expect("a JWK");
        let key = DecodingKey::from_jwk(&jwk).expect("a key");
        let mut validation = Validation::new(alg);
        validation.set_audience(&["me"]);
        jsonwebtoken::decode::<Value>(token, &key, &validation).is_ok()
    }

    /// `token` with the last character of its signature changed.
    fn tampered(token: &str) -> String {
        let (rest, last) = token.split_at(token.len() - 1);
        format!("{rest}{}", if last == "A" { "B" } else { "A" })
    }

    #[test]
    fn an_ed25519_token_verifies_and_a_tampered_one_does_not() {
        let pkcs8 = signature::Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).unwrap();
        let pair = signature::Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap();
        let token = token("EdDSA", |message| pair.sign(message).as_ref().to_vec());
        let x = URL_SAFE_NO_PAD.encode(pair.public_key().as_ref());
        let jwk = json!({"kty": "OKP", "crv": "Ed25519", "x": x});
        assert!(verifies(&token, jwk.clone(), Algorithm::EdDSA));
        assert!(!verifies(&tampered(&token), jwk, Algorithm::EdDSA));
    }

    #[test]
    fn an_es256_token_verifies_and_a_tampered_one_does_not() {
        let random = SystemRandom::new();
        let signing = &signature::ECDSA_P256_SHA256_FIXED_SIGNING;
        let pkcs8 = signature::EcdsaKeyPair::generate_pkcs8(signing, &random).unwrap();
        let pair = signature::EcdsaKeyPair::from_pkcs8(signing, pkcs8.as_ref(), &random).unwrap();
        let token = token("ES256", |message| {
            pair.sign(&random, message).unwrap().as_ref().to_vec()
        });
        // The public key is the uncompressed point: 0x04, then x and y.
        let point = pair.public_key().as_ref();
        let (x, y) = point[1..].split_at(32);
        let jwk = json!({
            "kty": "EC",
            "crv": "P-256",
            "x": URL_SAFE_NO_PAD.encode(x),
            "y": URL_SAFE_NO_PAD.encode(y),
        });
        assert!(verifies(&token, jwk.clone(), Algorithm::ES256));
        assert!(!verifies(&tampered(&token), jwk, Algorithm::ES256));
        // The same token never verifies as ES384, nor with an RSA key.
        let rsa = json!({"kty": "RSA", "n": URL_SAFE_NO_PAD.encode([7u8; 256]), "e": "AQAB"});
        assert!(!verifies(&token, rsa, Algorithm::ES256));
    }

    #[test]
    fn hmac_has_no_verifier() {
        super::install();
        let key = DecodingKey::from_secret(b"a shared secret").expect("a key");
        assert!(
            jsonwebtoken::crypto::verify("c2ln", b"message".as_slice(), &key, Algorithm::HS256)
                .is_err()
        );
    }
}
