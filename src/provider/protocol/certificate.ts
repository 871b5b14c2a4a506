/**
 * The plugin's TLS server certificate: a fresh self-signed ECDSA P-256 X.509 v3 certificate per
 * process, built with node:crypto and a small DER writer (node can parse certificates but not
 * create them). Terraform's go-plugin client pins exactly this certificate (it arrives in the
 * handshake line) and checks it for the name `localhost`, which Go only accepts from the
 * subjectAltName extension, never from the Common Name.
 */
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

// ---------------------------------------------------------------- DER writer

const TAG_BOOLEAN = 0x01;
const TAG_INTEGER = 0x02;
const TAG_BIT_STRING = 0x03;
const TAG_OCTET_STRING = 0x04;
const TAG_OBJECT_IDENTIFIER = 0x06;
const TAG_UTF8_STRING = 0x0c;
const TAG_UTC_TIME = 0x17;
const TAG_GENERALIZED_TIME = 0x18;
const TAG_SEQUENCE = 0x30;
const TAG_SET = 0x31;
/** [0] EXPLICIT (version) and [3] EXPLICIT (extensions) in tbsCertificate. */
const TAG_CONTEXT_0_CONSTRUCTED = 0xa0;
const TAG_CONTEXT_3_CONSTRUCTED = 0xa3;
/** [1] EXPLICIT (publicKey) in ECPrivateKey. */
const TAG_CONTEXT_1_CONSTRUCTED = 0xa1;
/** GeneralName dNSName: [2] IMPLICIT IA5String. */
const TAG_CONTEXT_2_PRIMITIVE = 0x82;

function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let remaining = length; remaining > 0; remaining = Math.floor(remaining / 256)) bytes.unshift(remaining & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), derLength(content.length), content]);
}

function sequence(...items: Buffer[]): Buffer {
  return tlv(TAG_SEQUENCE, Buffer.concat(items));
}

/** A non-negative INTEGER from big-endian magnitude bytes (minimal, sign byte when needed). */
function unsignedInteger(magnitude: Buffer): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  return tlv(TAG_INTEGER, (trimmed[0]! & 0x80) !== 0 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const bytes: number[] = [40 * arcs[0]! + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    const base128: number[] = [arc & 0x7f];
    for (let remaining = Math.floor(arc / 128); remaining > 0; remaining = Math.floor(remaining / 128)) {
      base128.unshift((remaining & 0x7f) | 0x80);
    }
    bytes.push(...base128);
  }
  return tlv(TAG_OBJECT_IDENTIFIER, Buffer.from(bytes));
}

function bitString(bytes: Buffer, unusedBits = 0): Buffer {
  return tlv(TAG_BIT_STRING, Buffer.concat([Buffer.from([unusedBits]), bytes]));
}

const BOOLEAN_TRUE = tlv(TAG_BOOLEAN, Buffer.from([0xff]));

/**
 * RFC 5280 4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050, always in seconds, Z.
 * Built from the UTC getters: the first toISOString() of a process costs about a millisecond.
 */
function certificateTime(date: Date): Buffer {
  const two = (value: number) => String(value).padStart(2, '0');
  const year = date.getUTCFullYear();
  const rest = `${two(date.getUTCMonth() + 1)}${two(date.getUTCDate())}${two(date.getUTCHours())}${two(date.getUTCMinutes())}${two(date.getUTCSeconds())}Z`;
  if (year >= 1950 && year < 2050) return tlv(TAG_UTC_TIME, Buffer.from(`${two(year % 100)}${rest}`, 'ascii'));
  return tlv(TAG_GENERALIZED_TIME, Buffer.from(`${String(year).padStart(4, '0')}${rest}`, 'ascii'));
}

// ---------------------------------------------------------------- certificate parts

const OID = {
  ecPublicKey: '1.2.840.10045.2.1',
  prime256v1: '1.2.840.10045.3.1.7',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organizationName: '2.5.4.10',
  subjectAltName: '2.5.29.17',
  keyUsage: '2.5.29.15',
  extendedKeyUsage: '2.5.29.37',
  basicConstraints: '2.5.29.19',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

function name(organization: string, commonName: string): Buffer {
  const attribute = (oid: string, value: string) =>
    tlv(TAG_SET, sequence(objectIdentifier(oid), tlv(TAG_UTF8_STRING, Buffer.from(value, 'utf8'))));
  return sequence(attribute(OID.organizationName, organization), attribute(OID.commonName, commonName));
}

function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return critical
    ? sequence(objectIdentifier(oid), BOOLEAN_TRUE, tlv(TAG_OCTET_STRING, value))
    : sequence(objectIdentifier(oid), tlv(TAG_OCTET_STRING, value));
}

/**
 * keyUsage bits (RFC 5280 4.2.1.3): digitalSignature (0), keyEncipherment (2), keyCertSign (5):
 * 1010 0100, whose two lowest bits are unused in DER's minimal form.
 */
const KEY_USAGE = bitString(Buffer.from([0xa4]), 2);

/** A P-256 coordinate or scalar from JWK's base64url, as its fixed 32 bytes. */
function p256Bytes(base64url: string | undefined): Buffer {
  const bytes = Buffer.from(base64url ?? '', 'base64url');
  if (bytes.length === 0 || bytes.length > 32) throw new Error(`a P-256 key component has ${bytes.length} byte(s), not 32`);
  return Buffer.concat([Buffer.alloc(32 - bytes.length), bytes]);
}

/**
 * The key's DER forms, written here from its JWK export: node's own DER/PEM export goes through
 * OpenSSL's encoders, whose first use in a process costs about a millisecond, for bytes that
 * are fixed but for the key's numbers.
 *   SubjectPublicKeyInfo (RFC 5480): { { id-ecPublicKey, prime256v1 }, BIT STRING 04||x||y }
 *   ECPrivateKey (RFC 5915, "EC PRIVATE KEY"): { 1, OCTET STRING d, [0] prime256v1, [1] BIT STRING 04||x||y }
 */
function p256KeyDer(privateKey: KeyObject): { subjectPublicKeyInfo: Buffer; ecPrivateKey: Buffer } {
  const jwk = privateKey.export({ format: 'jwk' });
  const point = Buffer.concat([Buffer.from([0x04]), p256Bytes(jwk.x), p256Bytes(jwk.y)]);
  const curve = objectIdentifier(OID.prime256v1);
  return {
    subjectPublicKeyInfo: sequence(sequence(objectIdentifier(OID.ecPublicKey), curve), bitString(point)),
    ecPrivateKey: sequence(
      unsignedInteger(Buffer.from([1])),
      tlv(TAG_OCTET_STRING, p256Bytes(jwk.d)),
      tlv(TAG_CONTEXT_0_CONSTRUCTED, curve),
      tlv(TAG_CONTEXT_1_CONSTRUCTED, bitString(point)),
    ),
  };
}

export interface CertificateOptions {
  /** @default 'localhost' */
  readonly hostname?: string;
  /** @default 'svc-prevent' */
  readonly organization?: string;
  /** @default a minute ago (clock skew between terraform and the plugin is harmless) */
  readonly notBefore?: Date;
  /** @default one year after notBefore */
  readonly notAfter?: Date;
}

export interface GeneratedCertificate {
  /** The certificate in DER, as the handshake line carries it (base64). */
  readonly der: Buffer;
  readonly certificatePem: string;
  /** PEM of the private key (SEC 1 / RFC 5915 "EC PRIVATE KEY"). */
  readonly privateKeyPem: string;
  readonly privateKey: KeyObject;
}

/** A fresh key pair and a self-signed server+client certificate for it. */
export function generateCertificate(options: CertificateOptions = {}): GeneratedCertificate {
  const hostname = options.hostname ?? 'localhost';
  const organization = options.organization ?? 'svc-prevent';
  const notBefore = options.notBefore ?? new Date(Date.now() - 60_000);
  const notAfter = options.notAfter ?? new Date(notBefore.getTime() + 365 * 24 * 3600 * 1000);

  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { subjectPublicKeyInfo, ecPrivateKey } = p256KeyDer(privateKey);
  const signatureAlgorithm = sequence(objectIdentifier(OID.ecdsaWithSha256));
  const subject = name(organization, hostname);

  // 16 random bytes, top bit cleared: a positive serial well inside RFC 5280's 20 octets.
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x01;

  const extensions = sequence(
    extension(OID.subjectAltName, false, sequence(tlv(TAG_CONTEXT_2_PRIMITIVE, Buffer.from(hostname, 'ascii')))),
    extension(OID.keyUsage, true, KEY_USAGE),
    extension(OID.extendedKeyUsage, false, sequence(objectIdentifier(OID.serverAuth), objectIdentifier(OID.clientAuth))),
    extension(OID.basicConstraints, true, sequence(BOOLEAN_TRUE)),
  );

  const tbsCertificate = sequence(
    tlv(TAG_CONTEXT_0_CONSTRUCTED, unsignedInteger(Buffer.from([2]))), // v3
    unsignedInteger(serial),
    signatureAlgorithm,
    subject, // issuer: self-signed
    sequence(certificateTime(notBefore), certificateTime(notAfter)),
    subject,
    subjectPublicKeyInfo,
    tlv(TAG_CONTEXT_3_CONSTRUCTED, extensions),
  );
  const signature = sign('sha256', tbsCertificate, { key: privateKey, dsaEncoding: 'der' });
  const der = sequence(tbsCertificate, signatureAlgorithm, bitString(signature));

  return {
    der,
    certificatePem: derToPem(der),
    privateKeyPem: pem('EC PRIVATE KEY', ecPrivateKey),
    privateKey,
  };
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

export function derToPem(der: Buffer): string {
  return pem('CERTIFICATE', der);
}

/** go-plugin's handshake encoding of the certificate: standard base64 without padding. */
export function handshakeCertificate(der: Buffer): string {
  return der.toString('base64').replace(/=+$/, '');
}
