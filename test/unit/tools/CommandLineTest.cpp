//===- CommandLineTest.cpp - The tools' option parsing --------------------===//

#include "tools/common/CommandLine.h"
#include "tools/common/ToolMain.h"

#include <new>
#include <stdexcept>

#include <gtest/gtest.h>

using namespace kiln::tools;

namespace {

/// A command line like kiln-run's, parsed from `words` (argv[0] added).
struct Parsed {
  CommandLine cl{"tool"};
  bool ok = false;
  std::string error;
  explicit Parsed(std::vector<std::string> words) {
    cl.flag("-h");
    cl.flag("--bench");
    cl.optionalValue("--json", "a file name (--json=FILE)");
    cl.option("--seed", "a non-negative integer");
    cl.option("-o", "a file name");
    cl.option("--input", "NAME=FILE", /*repeatable=*/true);
    words.insert(words.begin(), "tool");
    std::vector<const char *> argv;
    for (const std::string &w : words)
      argv.push_back(w.c_str());
    ok = cl.parse(int(argv.size()), argv.data(), error);
  }
};

} // namespace

TEST(CommandLine, TakesValuesAfterEqualsOrAsTheNextWord) {
  Parsed p({"a.plan", "--seed", "7", "-o", "out.plan", "--input=x=f=1.pb",
            "--input", "y=g.pb", "--bench"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.cl.value("--seed"), "7");
  EXPECT_EQ(p.cl.value("-o"), "out.plan");
  EXPECT_EQ(p.cl.values("--input"),
            (std::vector<std::string>{"x=f=1.pb", "y=g.pb"}));
  EXPECT_TRUE(p.cl.has("--bench"));
  EXPECT_FALSE(p.cl.has("--json"));
  EXPECT_EQ(p.cl.positional(), std::vector<std::string>{"a.plan"});
  // The next word is the value whatever it looks like, as before: a
  // negative number (refused by the tool's own check, with its message).
  Parsed negative({"--seed", "-3", "a.plan"});
  ASSERT_TRUE(negative.ok) << negative.error;
  EXPECT_EQ(negative.cl.value("--seed"), "-3");
  // Commas are no separators (file names may have them).
  Parsed comma({"a,b.plan", "--input", "x=c,d.pb"});
  ASSERT_TRUE(comma.ok) << comma.error;
  EXPECT_EQ(comma.cl.values("--input"), std::vector<std::string>{"x=c,d.pb"});
  EXPECT_EQ(comma.cl.positional(), std::vector<std::string>{"a,b.plan"});
}

TEST(CommandLine, OptionalValuesTakeOnlyWhatFollowsEquals) {
  Parsed flag({"--json", "a.plan"});
  ASSERT_TRUE(flag.ok) << flag.error;
  EXPECT_TRUE(flag.cl.has("--json"));
  EXPECT_EQ(flag.cl.value("--json"), std::nullopt);
  EXPECT_EQ(flag.cl.positional(), std::vector<std::string>{"a.plan"});
  Parsed file({"a.plan", "--json=r.json"});
  ASSERT_TRUE(file.ok) << file.error;
  EXPECT_EQ(file.cl.value("--json"), "r.json");
  Parsed empty({"a.plan", "--json="});
  ASSERT_TRUE(empty.ok) << empty.error;
  EXPECT_EQ(empty.cl.value("--json"), "") << "the tool refuses it itself";
  // "--" ends the options.
  Parsed dashes({"--", "--json"});
  ASSERT_TRUE(dashes.ok) << dashes.error;
  EXPECT_FALSE(dashes.cl.has("--json"));
  EXPECT_EQ(dashes.cl.positional(), std::vector<std::string>{"--json"});
}

TEST(CommandLine, RefusesWhatItCannotTakeAndNamesTheOption) {
  struct Case {
    std::vector<std::string> words;
    std::string error;
  } cases[] = {
      {{"--frobnicate"}, "unknown option '--frobnicate'"},
      {{"--sed", "3"}, "unknown option '--sed' (did you mean '--seed'?)"},
      {{"--jsn"}, "unknown option '--jsn' (did you mean '--json'?)"},
      {{"-x"}, "unknown option '-x'"},
      {{"a.plan", "--seed"}, "--seed needs a non-negative integer"},
      {{"a.plan", "-o"}, "-o needs a file name"},
      {{"--bench=yes"}, "--bench takes no value, got '--bench=yes'"},
      {{"--seed", "1", "--seed=2"},
       "--seed is given twice ('--seed=1' and '--seed=2'): give it once"},
      {{"--json", "--json=r.json"},
       "--json is given twice ('--json' and '--json=r.json'): give it once"},
  };
  for (const Case &c : cases) {
    Parsed p(c.words);
    EXPECT_FALSE(p.ok) << c.error;
    EXPECT_EQ(p.error, c.error);
  }
  // A flag given twice is the flag.
  Parsed twice({"--bench", "--bench"});
  EXPECT_TRUE(twice.ok) << twice.error;
}

TEST(CommandLine, ParsesNumbersStrictly) {
  uint64_t u = 0;
  EXPECT_TRUE(parseUnsigned("0", u));
  EXPECT_TRUE(parseUnsigned("18446744073709551615", u));
  EXPECT_EQ(u, UINT64_MAX);
  for (const char *bad :
       {"", "-1", "+1", " 1", "1 ", "1x", "0x10", "18446744073709551616"})
    EXPECT_FALSE(parseUnsigned(bad, u)) << bad;
  double d = 0;
  EXPECT_TRUE(parseNonNegative("1e-3", d));
  EXPECT_EQ(d, 1e-3);
  EXPECT_TRUE(parseNonNegative(".5", d));
  for (const char *bad :
       {"", "-1", "-0.1", "inf", "nan", "1e999", " 1", "1x", "+1"})
    EXPECT_FALSE(parseNonNegative(bad, d)) << bad;
}

TEST(ToolMain, NoExceptionEscapes) {
  EXPECT_EQ(guardedMain("tool", 2, [] { return 1; }), 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(guardedMain("tool", 2, []() -> int { throw std::bad_alloc(); }), 2);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "tool: error: out of host memory (an allocation failed); nothing "
            "more was done\n");
  testing::internal::CaptureStderr();
  EXPECT_EQ(guardedMain("tool", 2,
                        []() -> int { throw std::out_of_range("key 'x'"); }),
            2);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "tool: error: internal error: key 'x'\n");
  testing::internal::CaptureStderr();
  EXPECT_EQ(guardedMain("tool", 7, []() -> int { throw 42; }), 7);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "tool: error: internal error: an unknown exception\n");
}
