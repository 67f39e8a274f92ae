#include "json.hpp"

#include <cctype>
#include <cstdlib>
#include <stdexcept>

namespace gemv::json {

namespace {

struct Parser {
    const std::string& s;
    std::size_t i = 0;

    [[noreturn]] void fail(const std::string& what) const {
        throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(i));
    }
    void skip() {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    }
    bool eat(char c) {
        skip();
        if (i < s.size() && s[i] == c) {
            ++i;
            return true;
        }
        return false;
    }
    void expect(char c) {
        if (!eat(c)) fail(std::string("expected '") + c + "'");
    }
    std::string string_literal() {
        expect('"');
        std::string out;
        while (i < s.size() && s[i] != '"') {
            if (s[i] == '\\') {
                if (++i >= s.size()) fail("unfinished escape");
                const char e = s[i];
                out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
            } else {
                out += s[i];
            }
            ++i;
        }
        if (i >= s.size()) fail("unterminated string");
        ++i;
        return out;
    }
    Value value(int depth) {
        if (depth > 64) fail("nesting too deep");
        skip();
        if (i >= s.size()) fail("unexpected end");
        Value v;
        const char c = s[i];
        if (c == '{') {
            ++i;
            v.kind = Value::Kind::object;
            if (eat('}')) return v;
            do {
                skip();
                const std::string key = string_literal();
                expect(':');
                v.object[key] = value(depth + 1);
            } while (eat(','));
            expect('}');
        } else if (c == '[') {
            ++i;
            v.kind = Value::Kind::array;
            if (eat(']')) return v;
            do v.array.push_back(value(depth + 1));
            while (eat(','));
            expect(']');
        } else if (c == '"') {
            v.kind = Value::Kind::string;
            v.string = string_literal();
        } else if (s.compare(i, 4, "true") == 0 || s.compare(i, 5, "false") == 0) {
            v.kind = Value::Kind::boolean;
            v.boolean = s[i] == 't';
            i += v.boolean ? 4 : 5;
        } else if (s.compare(i, 4, "null") == 0) {
            i += 4;
        } else {
            const char* begin = s.c_str() + i;
            char* end = nullptr;
            v.number = std::strtod(begin, &end);
            if (end == begin) fail("unexpected character");
            v.kind = Value::Kind::number;
            i += static_cast<std::size_t>(end - begin);
        }
        return v;
    }
};

}  // namespace

const Value& Value::at(const std::string& key) const {
    const auto it = object.find(key);
    if (kind != Kind::object || it == object.end()) throw std::runtime_error("JSON: no \"" + key + "\"");
    return it->second;
}

double Value::num(const std::string& key) const {
    const Value& v = at(key);
    if (v.kind != Kind::number) throw std::runtime_error("JSON: \"" + key + "\" is not a number");
    return v.number;
}

const std::string& Value::str(const std::string& key) const {
    const Value& v = at(key);
    if (v.kind != Kind::string) throw std::runtime_error("JSON: \"" + key + "\" is not a string");
    return v.string;
}

Value parse(const std::string& text) {
    Parser p{text};
    Value v = p.value(0);
    p.skip();
    if (p.i != text.size()) p.fail("trailing characters");
    return v;
}

std::string quote(const std::string& s) {
    std::string q = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') q += '\\';
        q += c;
    }
    return q + "\"";
}

}  // namespace gemv::json
