// A small JSON reader for the lab's own files (tuning tables): objects, arrays, strings, numbers,
// true, false, null. Throws std::runtime_error with the offset of the first thing it cannot read.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gemv::json {

struct Value {
    enum class Kind { null, boolean, number, string, array, object } kind = Kind::null;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<Value> array;
    std::map<std::string, Value> object;

    bool has(const std::string& key) const { return kind == Kind::object && object.count(key) > 0; }
    const Value& at(const std::string& key) const;  // throws naming the missing key
    double num(const std::string& key) const;       // at(key) as a number, or throws
    const std::string& str(const std::string& key) const;
};

Value parse(const std::string& text);
std::string quote(const std::string& s);  // a JSON string literal

}  // namespace gemv::json
