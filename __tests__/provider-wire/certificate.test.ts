import { X509Certificate, createPrivateKey, createPublicKey, createSign, verify } from 'node:crypto';
import { derToPem, generateCertificate, handshakeCertificate } from '../../src/provider/protocol/certificate';

describe('the generated server certificate', () => {
  const generated = generateCertificate();
  const certificate = new X509Certificate(generated.der);

  test('is self-signed by its own P-256 key', () => {
    expect(certificate.verify(certificate.publicKey)).toBe(true);
    expect(certificate.publicKey.asymmetricKeyType).toBe('ec');
    expect(certificate.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(certificate.checkPrivateKey(generated.privateKey)).toBe(true);
    expect(certificate.issuer).toBe(certificate.subject);
  });

  test('another key does not verify it', () => {
    const other = generateCertificate();
    expect(certificate.verify(createPublicKey(other.privateKey))).toBe(false);
  });

  test('names localhost in the subjectAltName (Go ignores the Common Name) and in the subject', () => {
    expect(certificate.subjectAltName).toBe('DNS:localhost');
    expect(certificate.checkHost('localhost')).toBe('localhost');
    expect(certificate.checkHost('example.com')).toBeUndefined();
    expect(certificate.subject.split('\n').sort()).toEqual(['CN=localhost', 'O=svc-prevent']);
  });

  test('is a CA usable for TLS servers and clients', () => {
    expect(certificate.ca).toBe(true);
    expect(certificate.keyUsage?.sort()).toEqual(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
    expect(certificate.toLegacyObject()).toMatchObject({
      ext_key_usage: ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2'],
    });
  });

  test('has a positive serial and a validity window around now', () => {
    expect(certificate.serialNumber).toMatch(/^[0-7][0-9A-F]{31}$/);
    const now = Date.now();
    expect(new Date(certificate.validFrom).getTime()).toBeLessThan(now);
    expect(new Date(certificate.validTo).getTime()).toBeGreaterThan(now + 300 * 24 * 3600 * 1000);
  });

  test('its private key signs what its certificate verifies', () => {
    const signature = createSign('sha256').update('hello').sign(generated.privateKeyPem);
    expect(verify('sha256', Buffer.from('hello'), certificate.publicKey, signature)).toBe(true);
  });

  test('the key forms written from the JWK are the ones OpenSSL writes: SPKI in the certificate, SEC 1 PEM', () => {
    // 200 keys: a coordinate or scalar with a leading zero byte (1 in 256 each) shows up in most runs.
    for (let index = 0; index < 200; index += 1) {
      const sample = index === 0 ? generated : generateCertificate();
      const expectedSpki = createPublicKey(sample.privateKey).export({ type: 'spki', format: 'der' });
      expect(new X509Certificate(sample.der).publicKey.export({ type: 'spki', format: 'der' }).equals(expectedSpki)).toBe(true);
      expect(sample.privateKeyPem).toBe(sample.privateKey.export({ type: 'sec1', format: 'pem' }));
      expect(createPrivateKey(sample.privateKeyPem).export({ format: 'jwk' })).toEqual(sample.privateKey.export({ format: 'jwk' }));
    }
  });

  test('PEM and DER agree, and the handshake form is unpadded standard base64', () => {
    expect(new X509Certificate(generated.certificatePem).fingerprint256).toBe(certificate.fingerprint256);
    expect(derToPem(generated.der)).toBe(generated.certificatePem);
    const handshake = handshakeCertificate(generated.der);
    expect(handshake).toMatch(/^[A-Za-z0-9+/]+$/);
    expect(Buffer.from(handshake, 'base64').equals(generated.der)).toBe(true);
  });
});

describe('validity times: UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280)', () => {
  const cases = [
    {
      name: 'UTCTime for both',
      notBefore: '2026-01-02T03:04:05Z',
      notAfter: '2049-12-31T23:59:59Z',
      encoded: ['17 0d 260102030405Z', '17 0d 491231235959Z'],
    },
    {
      name: 'GeneralizedTime for an end in 2050',
      notBefore: '2026-01-02T03:04:05Z',
      notAfter: '2050-01-01T00:00:00Z',
      encoded: ['17 0d 260102030405Z', '18 0f 20500101000000Z'],
    },
  ];
  test.each(cases)('$name', ({ notBefore, notAfter, encoded }) => {
    const generated = generateCertificate({ notBefore: new Date(notBefore), notAfter: new Date(notAfter) });
    const certificate = new X509Certificate(generated.der);
    expect(new Date(certificate.validFrom).toISOString()).toBe(new Date(notBefore).toISOString());
    expect(new Date(certificate.validTo).toISOString()).toBe(new Date(notAfter).toISOString());
    // validity is SEQUENCE { notBefore, notAfter }: 30 <length> <time> <time>
    const [first, second] = encoded.map((form) => {
      const [tag, length, text] = form.split(' ');
      return Buffer.concat([Buffer.from(tag! + length!, 'hex'), Buffer.from(text!, 'ascii')]);
    });
    const validity = Buffer.concat([Buffer.from([0x30, first!.length + second!.length]), first!, second!]);
    expect(generated.der.includes(validity)).toBe(true);
  });
});
