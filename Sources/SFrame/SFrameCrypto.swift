internal import COpenSSL

/// The OpenSSL 3 primitives SFrame is built from (RFC 9605 §4.4–4.5): HKDF (RFC 5869), HMAC,
/// AES-CTR and AES-GCM through EVP. Nothing here is hand-rolled cryptography; each function is
/// one EVP operation with its failure as `SFrameError.crypto`.
enum SFrameCrypto {
    /// The digest of `suite`'s hash (SHA-256 or SHA-512).
    static func digest(_ suite: SFrameCipherSuite) -> OpaquePointer {
        suite.hashLength == 64 ? EVP_sha512() : EVP_sha256()
    }

    /// HKDF-Extract(salt, ikm) (RFC 5869 §2.2).
    static func extract(_ suite: SFrameCipherSuite, salt: [UInt8], keyMaterial: [UInt8]) throws(SFrameError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: suite.hashLength)
        let ok = media_hkdf(digest(suite), 1, salt, salt.count, keyMaterial, keyMaterial.count, nil, 0, &out, out.count)
        guard ok == 1 else { throw .crypto("HKDF-Extract (EVP_PKEY_derive)") }
        return out
    }

    /// HKDF-Expand(prk, info, length) (RFC 5869 §2.3).
    static func expand(_ suite: SFrameCipherSuite, pseudorandomKey: [UInt8], info: [UInt8], length: Int) throws(SFrameError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        let ok = media_hkdf(digest(suite), 0, nil, 0, pseudorandomKey, pseudorandomKey.count, info, info.count, &out, length)
        guard ok == 1 else { throw .crypto("HKDF-Expand (EVP_PKEY_derive)") }
        return out
    }

    /// HMAC(key, data) with the suite's hash (`HMAC`).
    static func hmac(_ suite: SFrameCipherSuite, key: [UInt8], data: [UInt8]) throws(SFrameError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: suite.hashLength)
        var length: UInt32 = 0
        guard HMAC(digest(suite), key, Int32(key.count), data, data.count, &out, &length) != nil, Int(length) == out.count else {
            throw .crypto("HMAC")
        }
        return out
    }

    /// AES-128-CTR of `input` from the 16-byte `counter` block (`EVP_aes_128_ctr`); encrypts
    /// and decrypts alike.
    static func aesCTR(key: [UInt8], counter: [UInt8], _ input: ArraySlice<UInt8>) throws(SFrameError) -> [UInt8] {
        guard let context = EVP_CIPHER_CTX_new() else { throw .crypto("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        var out = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0, final: Int32 = 0
        let ok = input.withUnsafeBufferPointer { bytes in
            out.withUnsafeMutableBufferPointer { buffer in
                EVP_EncryptInit_ex(context, EVP_aes_128_ctr(), nil, key, counter) == 1
                    && EVP_EncryptUpdate(context, buffer.baseAddress, &written, bytes.baseAddress, Int32(bytes.count)) == 1
                    && EVP_EncryptFinal_ex(context, buffer.baseAddress! + Int(written), &final) == 1
            }
        }
        guard ok else { throw .crypto("AES-CTR (EVP_EncryptUpdate)") }
        return Array(out[0..<Int(written + final)])
    }

    /// AES-GCM seal (`EVP_aes_128_gcm` / `EVP_aes_256_gcm`): ciphertext || 16-byte tag.
    static func gcmSeal(key: [UInt8], nonce: [UInt8], aad: [UInt8], _ plaintext: ArraySlice<UInt8>) throws(SFrameError) -> [UInt8] {
        guard let context = EVP_CIPHER_CTX_new() else { throw .crypto("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        let cipher = key.count == 32 ? EVP_aes_256_gcm() : EVP_aes_128_gcm()
        var out = [UInt8](repeating: 0, count: plaintext.count + 16 + 16)
        var written: Int32 = 0, final: Int32 = 0, ignored: Int32 = 0
        let ok = plaintext.withUnsafeBufferPointer { bytes in
            EVP_EncryptInit_ex(context, cipher, nil, nil, nil) == 1
                && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(nonce.count), nil) == 1
                && EVP_EncryptInit_ex(context, nil, nil, key, nonce) == 1
                && (aad.isEmpty || EVP_EncryptUpdate(context, nil, &ignored, aad, Int32(aad.count)) == 1)
                && EVP_EncryptUpdate(context, &out, &written, bytes.baseAddress, Int32(bytes.count)) == 1
        }
        guard ok else { throw .crypto("AES-GCM (EVP_EncryptUpdate)") }
        let finished = out.withUnsafeMutableBufferPointer { buffer in
            EVP_EncryptFinal_ex(context, buffer.baseAddress! + Int(written), &final) == 1
                && media_gcm_get_tag(context, buffer.baseAddress! + Int(written + final), 16) == 1
        }
        guard finished else { throw .crypto("AES-GCM (EVP_EncryptFinal_ex)") }
        return Array(out[0..<Int(written + final) + 16])
    }

    /// AES-GCM open: the plaintext, or nil when the 16-byte tag at the end does not verify.
    static func gcmOpen(key: [UInt8], nonce: [UInt8], aad: [UInt8], _ sealed: ArraySlice<UInt8>) throws(SFrameError) -> [UInt8]? {
        guard sealed.count >= 16 else { return nil }
        guard let context = EVP_CIPHER_CTX_new() else { throw .crypto("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        let cipher = key.count == 32 ? EVP_aes_256_gcm() : EVP_aes_128_gcm()
        let body = sealed.dropLast(16)
        var tag = Array(sealed.suffix(16))
        var out = [UInt8](repeating: 0, count: body.count + 16)
        var written: Int32 = 0, final: Int32 = 0, ignored: Int32 = 0
        let ok = body.withUnsafeBufferPointer { bytes in
            EVP_DecryptInit_ex(context, cipher, nil, nil, nil) == 1
                && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(nonce.count), nil) == 1
                && EVP_DecryptInit_ex(context, nil, nil, key, nonce) == 1
                && (aad.isEmpty || EVP_DecryptUpdate(context, nil, &ignored, aad, Int32(aad.count)) == 1)
                && EVP_DecryptUpdate(context, &out, &written, bytes.baseAddress, Int32(bytes.count)) == 1
                && media_gcm_set_tag(context, &tag, 16) == 1
        }
        guard ok else { throw .crypto("AES-GCM (EVP_DecryptUpdate)") }
        let verified = out.withUnsafeMutableBufferPointer { buffer in
            EVP_DecryptFinal_ex(context, buffer.baseAddress! + Int(written), &final) == 1
        }
        return verified ? Array(out[0..<Int(written + final)]) : nil
    }

    /// Whether two equally long byte strings are equal, in time independent of where they
    /// differ (`CRYPTO_memcmp`).
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && CRYPTO_memcmp(a, b, a.count) == 0
    }
}
