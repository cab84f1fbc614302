import Foundation

/// Typed reads of the `[String: Any]` JSONSerialization makes of a Janus event: each names the
/// field's path in the error it throws, so a malformed event says exactly what was wrong.
struct JanusJSONFields {
    let object: [String: Any]
    /// Where `object` sits in the event, e.g. `publishers[2]` (empty at the top).
    let path: String

    init(_ object: [String: Any], path: String = "") {
        self.object = object
        self.path = path
    }

    func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func has(_ key: String) -> Bool { object[key] != nil && !(object[key] is NSNull) }

    /// An integer (JSON numbers with no fraction; a Bool is not one).
    func integer(_ key: String) throws(JanusEventError) -> Int {
        guard let value = object[key], !(value is NSNull) else { throw .missingField(name(key)) }
        guard let number = value as? NSNumber, !Self.isBool(number), let exact = Int(exactly: number.doubleValue) else {
            throw .wrongType(field: name(key), expected: "an integer")
        }
        return exact
    }

    func optionalInteger(_ key: String) throws(JanusEventError) -> Int? {
        has(key) ? try integer(key) : nil
    }

    /// A number (integer or fraction; a Bool is not one).
    func optionalNumber(_ key: String) throws(JanusEventError) -> Double? {
        guard has(key), let value = object[key] else { return nil }
        guard let number = value as? NSNumber, !Self.isBool(number) else {
            throw .wrongType(field: name(key), expected: "a number")
        }
        return number.doubleValue
    }

    func string(_ key: String) throws(JanusEventError) -> String {
        guard let value = object[key], !(value is NSNull) else { throw .missingField(name(key)) }
        guard let text = value as? String else { throw .wrongType(field: name(key), expected: "a string") }
        return text
    }

    func optionalString(_ key: String) throws(JanusEventError) -> String? {
        has(key) ? try string(key) : nil
    }

    /// A Bool; Janus writes some flags as strings in its docs, so "true"/"false" pass too.
    func optionalBool(_ key: String) throws(JanusEventError) -> Bool? {
        guard has(key), let value = object[key] else { return nil }
        if let number = value as? NSNumber, Self.isBool(number) { return number.boolValue }
        if let text = value as? String, text == "true" || text == "false" { return text == "true" }
        throw .wrongType(field: name(key), expected: "true or false")
    }

    /// An integer that Janus documents as a string in places (`mindex`): both are read.
    func integerOrNumericString(_ key: String) throws(JanusEventError) -> Int {
        if let text = object[key] as? String {
            guard let value = Int(text) else { throw .wrongType(field: name(key), expected: "an integer") }
            return value
        }
        return try integer(key)
    }

    func optionalObject(_ key: String) throws(JanusEventError) -> JanusJSONFields? {
        guard has(key), let value = object[key] else { return nil }
        guard let nested = value as? [String: Any] else { throw .wrongType(field: name(key), expected: "an object") }
        return JanusJSONFields(nested, path: name(key))
    }

    /// An array of objects, at most `limit` of them (absent: empty).
    func objects(_ key: String, limit: Int) throws(JanusEventError) -> [JanusJSONFields] {
        guard has(key), let value = object[key] else { return [] }
        guard let array = value as? [Any] else { throw .wrongType(field: name(key), expected: "an array of objects") }
        guard array.count <= limit else { throw .tooManyEntries(field: name(key), limit: limit) }
        var result: [JanusJSONFields] = []
        result.reserveCapacity(array.count)
        for (index, element) in array.enumerated() {
            guard let nested = element as? [String: Any] else {
                throw .wrongType(field: "\(name(key))[\(index)]", expected: "an object")
            }
            result.append(JanusJSONFields(nested, path: "\(name(key))[\(index)]"))
        }
        return result
    }

    /// JSONSerialization makes NSNumbers of both true/false and 0/1, and on Linux `is Bool` holds
    /// for 0 and 1 too; only JSON's true/false have the `char` type encoding.
    static func isBool(_ number: NSNumber) -> Bool {
        number.objCType.pointee == CChar(UInt8(ascii: "c"))
    }
}
