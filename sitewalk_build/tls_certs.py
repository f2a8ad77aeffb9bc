"""A local certificate authority and a server certificate for one network address (``serve --network``).

A phone opens the site over HTTPS (geolocation, the service worker and the file picker need a secure
context off loopback), so the site and the agent server need a certificate the phone trusts. No public
CA issues one for a private address, so ``serve`` makes its own CA once and installs nothing anywhere:
the inspector trusts that CA on the phone once (docs/operating.md), and every later leaf it signs is
trusted with it. Kept in a folder git ignores (``.tls/`` by default):

    ca.key, ca.crt        the CA (ten years), made once and reused
    leaf.key, leaf.crt    the server's certificate for one address (IP or DNS name in its SAN), signed by
                          the CA; made again when the address changes, the CA changed, or it nears its end
    public/sitewalk-ca.crt  a copy of ca.crt, the only file the static server may serve (never a key)

The leaf follows what iOS and Android require of a TLS server certificate: a subjectAltName naming the
address, extendedKeyUsage serverAuth, at most 397 days of validity; ECDSA P-256 keys. Made with the
`cryptography` package (the maintained one; the openssl CLI would need its config written out).
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from sitewalk_build.paths import ROOT

TLS_DIR = ROOT / ".tls"
CA_NAME = "Sitewalk local CA"
PUBLIC_CA = "sitewalk-ca.crt"
CA_DAYS = 3650
LEAF_DAYS = 397  # Apple's limit for a TLS server certificate
RENEW_BEFORE = datetime.timedelta(days=30)

__all__ = ["PUBLIC_CA", "TLS_DIR", "TlsFiles", "ensure_certificates"]


@dataclass(frozen=True)
class TlsFiles:
    """The files of one folder: the CA's certificate, and the leaf's certificate and key."""

    folder: Path

    @property
    def ca_cert(self) -> Path:
        return self.folder / "ca.crt"

    @property
    def ca_key(self) -> Path:
        return self.folder / "ca.key"

    @property
    def leaf_cert(self) -> Path:
        return self.folder / "leaf.crt"

    @property
    def leaf_key(self) -> Path:
        return self.folder / "leaf.key"

    @property
    def public(self) -> Path:
        """The folder the static server may serve: the CA's certificate only."""
        return self.folder / "public"


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def _san(address: str) -> x509.GeneralName:
    try:
        return x509.IPAddress(ipaddress.ip_address(address))
    except ValueError:
        return x509.DNSName(address)


def _write_key(path: Path, key: ec.EllipticCurvePrivateKey) -> None:
    data = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # a key is readable by its owner only
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def _write_cert(path: Path, cert: x509.Certificate) -> None:
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def _make_ca(files: TlsFiles) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, CA_NAME)])
    now = _now()
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=CA_DAYS))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                         content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False,
                                         encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256()))
    _write_key(files.ca_key, key)
    _write_cert(files.ca_cert, cert)


def _load_ca(files: TlsFiles) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey] | None:
    try:
        cert = x509.load_pem_x509_certificate(files.ca_cert.read_bytes())
        key = serialization.load_pem_private_key(files.ca_key.read_bytes(), password=None)
    except (OSError, ValueError):
        return None
    if not isinstance(key, ec.EllipticCurvePrivateKey) or cert.not_valid_after_utc - RENEW_BEFORE < _now():
        return None
    return cert, key


def _make_leaf(files: TlsFiles, address: str, ca: x509.Certificate, ca_key: ec.EllipticCurvePrivateKey) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    now = _now()
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, address)]))
            .issuer_name(ca.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=LEAF_DAYS))
            .add_extension(x509.SubjectAlternativeName([_san(address)]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
                           critical=False)
            .sign(ca_key, hashes.SHA256()))
    _write_key(files.leaf_key, key)
    _write_cert(files.leaf_cert, cert)


def _leaf_fits(files: TlsFiles, address: str, ca: x509.Certificate) -> bool:
    """The leaf on disk names exactly this address, was issued by this CA and is not near its end."""
    try:
        cert = x509.load_pem_x509_certificate(files.leaf_cert.read_bytes())
        files.leaf_key.stat()
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (OSError, ValueError, x509.ExtensionNotFound):
        return False
    try:
        cert.verify_directly_issued_by(ca)
    except (InvalidSignature, ValueError, TypeError):  # another CA's leaf, or another key type
        return False
    return list(names) == [_san(address)] and cert.not_valid_after_utc - RENEW_BEFORE > _now()


def ensure_certificates(address: str, folder: Path = TLS_DIR) -> TlsFiles:
    """The CA (made on first use, else reused) and a leaf for ``address`` (reused when it still fits)."""
    files = TlsFiles(folder)
    folder.mkdir(parents=True, exist_ok=True)
    loaded = _load_ca(files)
    if loaded is None:
        _make_ca(files)
        loaded = _load_ca(files)
        assert loaded is not None
    ca, ca_key = loaded
    if not _leaf_fits(files, address, ca):
        _make_leaf(files, address, ca, ca_key)
    files.public.mkdir(exist_ok=True)
    shutil.copyfile(files.ca_cert, files.public / PUBLIC_CA)
    return files
