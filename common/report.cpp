#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iomanip>

namespace gemv {

std::string occupancy_text(const OccupancyReport& o) {
    if (!o.valid) return "-";
    return fixed(100 * o.occupancy, 0) + "% (" + o.limiter + ")";
}

namespace {

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string json_string(const std::string& s) {
    std::string q = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') q += '\\';
        if (static_cast<unsigned char>(c) < 0x20) {
            q += ' ';
            continue;
        }
        q += c;
    }
    return q + "\"";
}

// The whole text is a finite number ("-", "", "inf" and "nan" are not): JSON writes it bare.
bool finite_number(const std::string& text) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    return !text.empty() && end == text.c_str() + text.size() && std::isfinite(v);
}

std::string verified_text(const Result& r) {
    return gemv::verified_text(!r.verify_skipped, r.verified);
}

bool failed(const Result& r) {
    return !r.verify_skipped && !r.verified;
}

// Every field of a row, in one order: CSV and JSON share it.
Fields fields(const Metadata& meta, const Result& r) {
    Fields f = {{"step", r.step, false}, {"name", r.name, false}, {"variant", r.variant, false}};
    append(f, metadata_fields(meta));
    append(f, {
                  {"precision", to_string(r.precision), false},
                  {"layout", to_string(r.shape.layout), false},
                  {"m", std::to_string(r.shape.m), true},
                  {"n", std::to_string(r.shape.n), true},
                  {"bytes", std::to_string(r.bytes()), true},
                  {"cache", r.cold ? "cold" : "hot", false},
                  {"reps", std::to_string(r.time.reps), true},
              });
    append(f, time_fields(r.time));
    append(f, {
                  {"gbps", number(r.gbps()), true},
                  {"ceiling_gbps", r.ceiling_busy ? kCeilingBusy : number(r.ceiling_gbps), true},
                  {"pct_ceiling", r.ceiling_busy ? kCeilingBusy : number(r.pct_ceiling()), true},
                  {"datasheet_gbps", number(r.datasheet_gbps), true},
                  {"pct_datasheet", number(r.pct_datasheet()), true},
                  {"gflops", number(r.gflops()), true},
                  {"cgma", number(r.cgma()), true},
                  {"intensity", number(r.intensity()), true},
                  {"launch", r.launch, false},
              });
    append(f, occupancy_fields(r.occupancy));
    f.push_back({"verified", verified_text(r), false});
    append(f, r.extra);
    return f;
}

void print_table(std::ostream& out, const Metadata& meta, const std::vector<Result>& results) {
    if (results.empty()) return;
    const Result& f = results.front();
    out << "step " << f.step << " " << f.name << ": " << to_string(f.precision) << ", " << layout_word(f.shape.layout)
        << " A, " << f.shape.m << " x " << f.shape.n << " ("
        << (f.vectors == 1 ? "" : std::to_string(f.vectors) + " vectors, ")
        << format_bytes(static_cast<double>(f.bytes())) << " moved at least), " << (f.cold ? "cold" : "hot")
        << " cache, median of " << f.time.reps << "\n"
        << origin_line(meta) << "\n"
        << (f.ceiling_busy       ? std::string("ceiling not trusted: taken on a busy host")
            : f.ceiling_gbps > 0 ? "ceiling " + fixed(f.ceiling_gbps, 0) + " GB/s measured"
                                 : std::string("ceiling not measured: no figure here is compared with it"));
    if (f.datasheet_gbps > 0) out << ", " << fixed(f.datasheet_gbps, 0) << " GB/s datasheet";
    out << "\n\n";
    const std::vector<std::string> head = {"variant", "time [us]", "min..max [us]", "GB/s", "% ceil",  "GFLOP/s",
                                           "CGMA",    "launch",    "occupancy",     "regs", "verified"};
    const bool cpu = meta.runtime_version == "-";
    std::vector<std::vector<std::string>> rows;
    bool noise = false, busy = false;
    for (const auto& r : results) {
        const ShownFigures s =
            shown_figures(r.gbps(), r.pct_ceiling(), r.gflops(), r.time.median_ms, failed(r), cpu, r.ceiling_busy);
        noise |= s.noise;
        busy |= s.busy;
        rows.push_back({r.variant, fixed(r.time.median_ms * 1e3, 1),
                        fixed(r.time.min_ms * 1e3, 1) + ".." + fixed(r.time.max_ms * 1e3, 1), s.gbps, s.pct_ceiling,
                        s.gflops, fixed(r.cgma(), 3), r.launch, occupancy_text(r.occupancy),
                        r.occupancy.valid ? std::to_string(r.occupancy.registers_per_thread) : "-", verified_text(r)});
    }
    print_columns(out, head, rows, {0, 7, 8});
    if (noise) out << noise_note() << "\n";
    if (busy) out << busy_note() << "\n";
}

}  // namespace

std::string verified_text(bool checked, bool ok) {
    return !checked ? "not checked" : ok ? "yes" : "NO";
}

std::string origin_line(const Metadata& meta) {
    const bool cpu = meta.runtime_version == "-";
    return "on " + meta.device + " (" + std::to_string(meta.units) +
           (cpu ? " threads" : " SMs, CUDA runtime " + meta.runtime_version + ", driver " + meta.driver_version) +
           "), " + meta.build_type + " build, " + meta.git_revision;
}

Fields metadata_fields(const Metadata& meta) {
    return {{"device", meta.device, false},           {"units", std::to_string(meta.units), true},
            {"runtime", meta.runtime_version, false}, {"driver", meta.driver_version, false},
            {"build_type", meta.build_type, false},   {"git_revision", meta.git_revision, false}};
}

Fields time_fields(const Stats& time) {
    return {{"median_ms", number(time.median_ms), true},
            {"min_ms", number(time.min_ms), true},
            {"max_ms", number(time.max_ms), true}};
}

Fields occupancy_fields(const OccupancyReport& o) {
    return {{"threads_per_block", std::to_string(o.threads_per_block), true},
            {"registers_per_thread", std::to_string(o.registers_per_thread), true},
            {"shared_bytes_per_block", std::to_string(o.shared_bytes_per_block), true},
            {"blocks_per_sm", std::to_string(o.blocks_per_sm), true},
            {"occupancy", number(o.occupancy), true},
            {"limiter", o.valid ? o.limiter : "-", false}};
}

void append(Fields& row, const Fields& more) {
    row.insert(row.end(), more.begin(), more.end());
}

std::string noise_note() {
    return "noise: a CPU run under " + fixed(kCpuNoiseFloorMs, 1) +
           " ms times thread start-up more than memory, so its % of the ceiling is not shown";
}

std::string busy_note() {
    return std::string(kCeilingBusy) +
           ": other processes took CPU time from the ceiling's threads while they read it, so it would read low"
           " and no % of it is shown";
}

ShownFigures shown_figures(double gbps, double pct_ceiling, double gflops, double median_ms, bool failed, bool cpu,
                           bool ceiling_busy) {
    if (failed) return {"-", "-", "-", false, false};
    if (cpu && median_ms < kCpuNoiseFloorMs) return {fixed(gbps, 1), "noise", fixed(gflops, 1), true, false};
    if (ceiling_busy) return {fixed(gbps, 1), kCeilingBusy, fixed(gflops, 1), false, true};
    return {fixed(gbps, 1), fixed(pct_ceiling, 1), fixed(gflops, 1), false, false};
}

void print_columns(std::ostream& out, const std::vector<std::string>& head,
                   const std::vector<std::vector<std::string>>& rows, const std::vector<std::size_t>& left) {
    std::vector<std::size_t> width(head.size());
    for (std::size_t c = 0; c < head.size(); ++c) {
        width[c] = head[c].size();
        for (const auto& row : rows)
            if (row.size() == head.size()) width[c] = std::max(width[c], row[c].size());
    }
    const auto line = [&](const std::vector<std::string>& cells) {
        const bool padded = cells.size() == head.size();
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const bool to_left = std::find(left.begin(), left.end(), c) != left.end();
            const bool last = c + 1 == cells.size();  // left-aligned there, it needs no padding
            out << (c ? "  " : "") << (to_left ? std::left : std::right)
                << std::setw(padded && !(to_left && last) ? int(width[c]) : 0) << cells[c];
        }
        out << std::right << "\n";
    };
    line(head);
    for (const auto& row : rows) line(row);
}

void print_fields(std::ostream& out, Format format, const std::vector<Fields>& rows) {
    if (format == Format::csv) {
        for (std::size_t r = 0; r < rows.size(); ++r) {
            const Fields& fs = rows[r];
            if (r == 0) {
                for (std::size_t i = 0; i < fs.size(); ++i) out << (i ? "," : "") << csv_field(fs[i].name);
                out << "\n";
            }
            for (std::size_t i = 0; i < fs.size(); ++i) out << (i ? "," : "") << csv_field(fs[i].text);
            out << "\n";
        }
        return;
    }
    out << "[\n";
    for (std::size_t r = 0; r < rows.size(); ++r) {
        out << "  {";
        for (std::size_t i = 0; i < rows[r].size(); ++i) {
            const Field& f = rows[r][i];
            const bool as_number = f.number && finite_number(f.text);
            out << (i ? ", " : "") << json_string(f.name) << ": " << (as_number ? f.text : json_string(f.text));
        }
        out << "}" << (r + 1 < rows.size() ? "," : "") << "\n";
    }
    out << "]\n";
}

void print_results(std::ostream& out, Format format, const Metadata& meta, const std::vector<Result>& results) {
    if (format == Format::table) {
        print_table(out, meta, results);
        return;
    }
    std::vector<Fields> rows;
    for (const auto& r : results) rows.push_back(fields(meta, r));
    print_fields(out, format, rows);
}

}  // namespace gemv
