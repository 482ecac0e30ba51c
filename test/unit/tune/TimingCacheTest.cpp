//===- TimingCacheTest.cpp - The tools' strict JSON and kiln-tune's cache -===//

#include "TimingCache.h"

#include "tools/common/Json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

#include <sys/stat.h>
#include <unistd.h>

using namespace kiln::tune;
using kiln::tools::Json;
using kiln::tools::jsonNumber;
using kiln::tools::jsonQuote;
using kiln::tools::parseJson;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t =
        (fs::temp_directory_path() / "kiln-tune-test-XXXXXX").string();
    std::vector<char> buf(t.begin(), t.end());
    buf.push_back(0);
    path = ::mkdtemp(buf.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto &e : fs::directory_iterator(path))
      out.push_back(e.path().filename().string());
    return out;
  }
};

std::string slurp(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void spit(const fs::path &p, const std::string &text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

TimingEntry entry(const std::string &target, const std::string &key,
                  double a = 0.0125, double b = 0.01) {
  TimingEntry e;
  e.target = target;
  e.key = key;
  e.name = "conv_0";
  e.device = "NVIDIA H200";
  e.timesMs = {{"wgmma 128x128x4", a}, {"mma.sync 64x64", b}};
  e.best = a <= b ? "wgmma 128x128x4" : "mma.sync 64x64";
  return e;
}

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

std::string parseError(const std::string &text) {
  TimingCache cache;
  Status s = parseTimingCache(text, "'c.json'", cache);
  EXPECT_FALSE(s.ok()) << text;
  return s.message();
}

} // namespace

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

TEST(Json, ParsesEveryKindOfValue) {
  Json v;
  std::string error;
  ASSERT_TRUE(parseJson(R"( {"a": [1, -2.5e3, 0.125, true, false, null],
                            "b": {"c": "d"}, "e": ""} )",
                        v, error))
      << error;
  ASSERT_TRUE(v.is_object());
  const Json &a = v["a"];
  ASSERT_EQ(a.size(), 6u);
  EXPECT_EQ(a[0].get<double>(), 1.0);
  EXPECT_EQ(a[1].get<double>(), -2500.0);
  EXPECT_EQ(a[2].get<double>(), 0.125);
  EXPECT_TRUE(a[3].get<bool>());
  EXPECT_TRUE(a[4].is_boolean());
  EXPECT_FALSE(a[4].get<bool>());
  EXPECT_TRUE(a[5].is_null());
  EXPECT_EQ(v["b"]["c"], "d");
  EXPECT_EQ(v["e"], "");
  EXPECT_FALSE(v.contains("z"));
  // Member order is the file's.
  EXPECT_EQ(v.begin().key(), "a");
  EXPECT_EQ((--v.end()).key(), "e");
}

TEST(Json, DecodesEscapes) {
  Json v;
  std::string error;
  ASSERT_TRUE(parseJson(
      R"("q\" b\\ s\/ \b\f\n\r\t \u0041\u00e9\u20ac\ud83d\ude00")", v, error))
      << error;
  EXPECT_EQ(v.get<std::string>(),
            "q\" b\\ s/ \b\f\n\r\t A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
}

TEST(Json, QuotesAnyStringSoThatItReadsBack) {
  // Every ASCII character, control characters and NUL included, and UTF-8.
  std::string all;
  for (int c = 1; c < 128; ++c)
    all += char(c);
  all += "\"quoted\" \\ \xe2\x82\xac \xf0\x9f\x98\x80";
  all += std::string(1, '\0');
  std::string quoted = jsonQuote(all);
  EXPECT_EQ(jsonQuote("a\"b\\c\n\x01"), R"("a\"b\\c\n\u0001")");
  Json v;
  std::string error;
  ASSERT_TRUE(parseJson(quoted, v, error)) << error;
  EXPECT_EQ(v.get<std::string>(), all);
  // Bytes that are not UTF-8 become U+FFFD: JSON text is UTF-8, and
  // llvm::json (kilnc --timing-cache) refuses anything else.
  EXPECT_EQ(jsonQuote("a\xff"
                      "b"),
            "\"a\xef\xbf\xbd"
            "b\"");
}

TEST(Json, NumbersAreShortestAndExact) {
  EXPECT_EQ(jsonNumber(0.0125), "0.0125");
  EXPECT_EQ(jsonNumber(1), "1.0");
  EXPECT_EQ(jsonNumber(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(jsonNumber(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(jsonNumber(std::nan("")), "null");
  std::mt19937_64 rng(3);
  for (int i = 0; i < 2000; ++i) {
    double v = std::ldexp(double(rng() >> 11), int(rng() % 80) - 100);
    Json parsed;
    std::string error;
    ASSERT_TRUE(parseJson(jsonNumber(v), parsed, error)) << jsonNumber(v);
    ASSERT_EQ(parsed.get<double>(), v) << jsonNumber(v);
  }
}

TEST(Json, RefusesMalformedTextAndSaysWhere) {
  struct Case {
    const char *text, *error;
  } cases[] = {
      {"", "line 1, column 1: syntax error while parsing value - unexpected "
           "end of input"},
      {"{\"a\": 1,}", "line 1, column 9: syntax error while parsing object "
                      "key"},
      {"{\"a\": 1}\n x", "line 2, column 2: syntax error"},
      {"[1 2]", "line 1, column 4: syntax error while parsing array"},
      {"{\"a\" 1}", "line 1, column 6: syntax error while parsing object "
                    "separator - unexpected number literal; expected ':'"},
      {"{\"a\": 1, \"a\": 2}", "duplicate object key \"a\""},
      {"{\"b\": {\"a\": 1, \"a\": 2}}", "duplicate object key \"a\""},
      {"\"abc", "line 1, column 5: syntax error"},
      {"\"a\tb\"", "control character"},
      {"\"\\x\"", "line 1, column 3: syntax error"},
      {"\"\\u12\"", "line 1, column 6: syntax error"},
      {"\"\\ud800\"", "surrogate"},
      {"\"\\udc00\"", "surrogate"},
      {"\"a\xff\"", "ill-formed UTF-8"},
      {"01", "line 1, column 2: syntax error"},
      {"-", "line 1, column 2: syntax error while parsing value - invalid "
            "number; expected digit after '-'"},
      {"1.", "expected digit after '.'"},
      {"1e", "expected '+', '-', or digit after exponent"},
      {"1e999", "number overflow parsing '1e999'"},
      {"nul", "line 1, column 4: syntax error while parsing value - invalid "
              "literal"},
      {"+1", "line 1, column 1: syntax error"},
      {"// comment\n1", "line 1, column 1: syntax error"},
  };
  for (const Case &c : cases) {
    Json v;
    std::string error;
    EXPECT_FALSE(parseJson(c.text, v, error)) << c.text;
    EXPECT_PRED2(contains, error, c.error) << c.text;
  }
  // The same key in two objects is fine.
  Json v;
  std::string error;
  EXPECT_TRUE(
      parseJson(R"({"a": {"a": 1}, "b": [{"a": 2}, {"a": 3}]})", v, error))
      << error;
  std::string deep(65, '[');
  deep += std::string(65, ']');
  EXPECT_FALSE(parseJson(deep, v, error));
  EXPECT_PRED2(contains, error, "nested more than 64 levels deep");
  std::string ok(64, '[');
  ok += std::string(64, ']');
  EXPECT_TRUE(parseJson(ok, v, error)) << error;
}

//===----------------------------------------------------------------------===//
// Timing cache
//===----------------------------------------------------------------------===//

TEST(TimingCache, RoundTripsThroughItsText) {
  TimingCache cache;
  cache.merge(entry("sm_90a", "conv2d f16 \"3x3\" \\ n1"));
  cache.merge(entry("sm_80", "gemm\n512", 0.5, 0.25));
  TimingEntry odd = entry("sm_90a", "k\x01");
  odd.name = "";
  odd.device = "";
  cache.merge(odd);
  std::string text = serializeTimingCache(cache);
  TimingCache back;
  Status s = parseTimingCache(text, "'c.json'", back);
  ASSERT_TRUE(s.ok()) << s.message() << "\n" << text;
  EXPECT_EQ(back.entries, cache.entries);
  // Writing what was read gives the same text.
  EXPECT_EQ(serializeTimingCache(back), text);
  EXPECT_EQ(text.rfind("{\"kiln_timing_cache\": 1,\n \"entries\": [\n  "
                       "{\"target\":\"sm_90a\",\"key\":\"conv2d f16 "
                       "\\\"3x3\\\" \\\\ n1\",\"name\":\"conv_0\","
                       "\"device\":\"NVIDIA H200\",\"best\":\"mma.sync "
                       "64x64\",\"times_ms\":{\"wgmma 128x128x4\":0.0125,"
                       "\"mma.sync 64x64\":0.01}},\n",
                       0),
            0u)
      << text;

  TimingCache empty;
  EXPECT_EQ(serializeTimingCache(empty),
            "{\"kiln_timing_cache\": 1,\n \"entries\": []}\n");
  ASSERT_TRUE(parseTimingCache(serializeTimingCache(empty), "x", back).ok());
  EXPECT_TRUE(back.entries.empty());
}

TEST(TimingCache, MergeReplacesTheSameTargetAndKey) {
  TimingCache cache;
  EXPECT_FALSE(cache.merge(entry("sm_90a", "a")));
  EXPECT_FALSE(cache.merge(entry("sm_90a", "b")));
  EXPECT_FALSE(cache.merge(entry("sm_80", "a"))); // other target: new entry
  EXPECT_TRUE(cache.merge(entry("sm_90a", "a", 1.0, 2.0)));
  ASSERT_EQ(cache.entries.size(), 3u);
  // Replaced in place: order stays stable.
  EXPECT_EQ(cache.entries[0].key, "a");
  EXPECT_EQ(cache.entries[0].timesMs[0].second, 1.0);
  EXPECT_EQ(cache.entries[0].best, "wgmma 128x128x4");
  EXPECT_EQ(cache.find("sm_80", "a")->timesMs[0].second, 0.0125);
  EXPECT_EQ(cache.find("sm_80", "b"), nullptr);
}

TEST(TimingCache, ReadsWhatOtherWritersProduce) {
  // Compact, reordered fields, no name/device, unknown fields ignored; a
  // later entry for the same (target, key) wins.
  TimingCache cache;
  Status s = parseTimingCache(
      R"({"entries":[{"times_ms":{"x":2,"y":1e-3},"best":"y","key":"k",)"
      R"("target":"sm_90a","note":"hand-made"},)"
      R"({"target":"sm_90a","key":"k","best":"x","times_ms":{"x":0.5}}],)"
      R"("kiln_timing_cache":1})",
      "'c.json'", cache);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(cache.entries.size(), 1u);
  EXPECT_EQ(cache.entries[0].best, "x");
  EXPECT_EQ(cache.entries[0].timesMs.size(), 1u);
  EXPECT_EQ(cache.entries[0].name, "");
}

TEST(TimingCache, RefusesCorruptAndForeignFiles) {
  EXPECT_PRED2(contains,
               parseError("{\"kiln_timing_cache\": 1, \"entries\": ["),
               "timing cache 'c.json' is not valid JSON: line 1, column 38: "
               "syntax error while parsing value - unexpected end of input");
  EXPECT_EQ(parseError("{\"name\": \"resnet\"}"),
            "'c.json' is not a kiln timing cache (a JSON object with "
            "\"kiln_timing_cache\": 1 is expected): give another file");
  EXPECT_PRED2(contains, parseError("[1, 2]"), "is not a kiln timing cache");
  TimingCache cache;
  Status s = parseTimingCache(R"({"kiln_timing_cache": 2, "entries": []})",
                              "'c.json'", cache);
  EXPECT_EQ(s.code(), StatusCode::UnsupportedVersion);
  EXPECT_EQ(s.message(), "timing cache 'c.json' has \"kiln_timing_cache\": 2; "
                         "this kiln-tune reads version 1");
  EXPECT_PRED2(contains, parseError(R"({"kiln_timing_cache": 1})"),
               "has no \"entries\" array");
  EXPECT_PRED2(contains,
               parseError(R"({"kiln_timing_cache": 1, "entries": [3]})"),
               "entry 0 is not an object");
  EXPECT_PRED2(
      contains,
      parseError(R"({"kiln_timing_cache": 1, "entries": [{"target": "sm_90a",
        "key": "k", "times_ms": {"a": 1}}]})"),
      "timing cache 'c.json': entry 0 has no \"best\"");
  EXPECT_PRED2(
      contains,
      parseError(R"({"kiln_timing_cache": 1, "entries": [{"target": "sm_90a",
        "key": 7, "best": "a", "times_ms": {"a": 1}}]})"),
      "entry 0: \"key\" is not a string");
  EXPECT_PRED2(
      contains,
      parseError(R"({"kiln_timing_cache": 1, "entries": [{"target": "sm_90a",
        "key": "k", "best": "b", "times_ms": {"a": 1}}]})"),
      "entry 0: its best variant \"b\" has no time");
  EXPECT_PRED2(
      contains,
      parseError(R"({"kiln_timing_cache": 1, "entries": [{"target": "sm_90a",
        "key": "k", "best": "a", "times_ms": {"a": -1}}]})"),
      "entry 0 has time -1.000000 ms for variant \"a\"");
  EXPECT_PRED2(
      contains,
      parseError(R"({"kiln_timing_cache": 1, "entries": [{"target": "sm_90a",
        "key": "k", "best": "a", "times_ms": {"a": "fast"}}]})"),
      "entry 0: the time of \"a\" is not a number");
  EXPECT_PRED2(contains,
               parseError(R"({"kiln_timing_cache": 1, "entries": [{"target": "",
        "key": "k", "best": "a", "times_ms": {"a": 1}}]})"),
               "entry 0 has no target");
}

TEST(TimingCache, FileMergeCreatesReplacesAndAppends) {
  TempDir dir;
  std::string path = (dir.path / "cache.json").string();
  MergeResult r;
  Status s = mergeTimingCacheFile(
      path, {entry("sm_90a", "a"), entry("sm_90a", "b")}, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(r.created);
  EXPECT_EQ(r.added, 2u);
  EXPECT_EQ(r.replaced, 0u);
  EXPECT_EQ(r.total, 2u);

  s = mergeTimingCacheFile(
      path, {entry("sm_90a", "b", 3.0, 4.0), entry("sm_80", "b")}, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(r.created);
  EXPECT_EQ(r.added, 1u);
  EXPECT_EQ(r.replaced, 1u);
  EXPECT_EQ(r.total, 3u);

  TimingCache cache;
  bool existed = false;
  ASSERT_TRUE(readTimingCache(path, cache, &existed).ok());
  EXPECT_TRUE(existed);
  ASSERT_EQ(cache.entries.size(), 3u);
  EXPECT_EQ(cache.entries[0], entry("sm_90a", "a"));
  EXPECT_EQ(cache.entries[1], entry("sm_90a", "b", 3.0, 4.0));
  EXPECT_EQ(cache.entries[2], entry("sm_80", "b"));
  // No temporary left behind.
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"cache.json"});
}

TEST(TimingCache, FileMergeLeavesACorruptFileUntouched) {
  TempDir dir;
  fs::path path = dir.path / "cache.json";
  std::string corrupt = "{\"kiln_timing_cache\": 1, \"entries\": [{\"tar";
  spit(path, corrupt);
  Status s = mergeTimingCacheFile(path.string(), {entry("sm_90a", "a")});
  EXPECT_FALSE(s.ok());
  EXPECT_PRED2(contains, s.message(),
               "timing cache '" + path.string() + "' is not valid JSON");
  EXPECT_EQ(slurp(path), corrupt);

  std::string foreign = "{\"model\": \"resnet50\"}\n";
  spit(path, foreign);
  s = mergeTimingCacheFile(path.string(), {entry("sm_90a", "a")});
  EXPECT_PRED2(contains, s.message(), "is not a kiln timing cache");
  EXPECT_EQ(slurp(path), foreign);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"cache.json"});

  // Entries to merge are checked too.
  TimingEntry bad = entry("sm_90a", "a");
  bad.best = "none";
  fs::remove(path);
  s = mergeTimingCacheFile(path.string(), {bad});
  EXPECT_PRED2(contains, s.message(), "its best variant \"none\" has no time");
  EXPECT_FALSE(fs::exists(path));
}

TEST(TimingCache, ReadReportsUnreadableFiles) {
  TempDir dir;
  TimingCache cache;
  bool existed = true;
  // Missing: an empty cache, not an error.
  Status s =
      readTimingCache((dir.path / "none.json").string(), cache, &existed);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(existed);
  s = readTimingCache(dir.path.string(), cache);
  EXPECT_EQ(s.message(), "timing cache: cannot read '" + dir.path.string() +
                             "': it is a directory, not a regular file");
  // A FIFO is refused at once: no open() that waits for a writer.
  std::string fifo = (dir.path / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0666), 0);
  s = readTimingCache(fifo, cache);
  EXPECT_EQ(s.message(), "timing cache: cannot read '" + fifo +
                             "': it is a FIFO, not a regular file");
  // An empty file (touch cache.json) is an empty cache that exists.
  std::string empty = (dir.path / "empty.json").string();
  spit(empty, "");
  existed = false;
  s = readTimingCache(empty, cache, &existed);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(existed);
  EXPECT_TRUE(cache.entries.empty());
  MergeResult merged;
  ASSERT_TRUE(
      mergeTimingCacheFile(empty, {entry("sm_90a", "a")}, &merged).ok());
  EXPECT_FALSE(merged.created);
  EXPECT_EQ(merged.total, 1u);
  s = mergeTimingCacheFile((dir.path / "missing" / "c.json").string(),
                           {entry("sm_90a", "a")});
  EXPECT_EQ(s.code(), StatusCode::IOError);
  EXPECT_PRED2(contains, s.message(), "No such file or directory");
}

TEST(TimingCache, FileMergeNeverReplacesAnInput) {
  // The cache is written by writeOutputFile's rule: never over an input of
  // the tool, here a file that reads as a cache, under another name.
  TempDir dir;
  std::string cache = (dir.path / "cache.json").string();
  std::string empty = serializeTimingCache(TimingCache());
  spit(cache, empty);
  std::string other = (dir.path / "input.json").string();
  fs::create_hard_link(cache, other);
  Status s = mergeTimingCacheFile(cache, {entry("sm_90a", "a")}, nullptr,
                                  {{other, "plan"}});
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_PRED2(contains, s.message(),
               "it would overwrite the plan '" + other + "' (the same file)");
  EXPECT_EQ(slurp(cache), empty);
}
