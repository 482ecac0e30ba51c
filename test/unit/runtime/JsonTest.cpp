//===- JsonTest.cpp - The runtime's JSON string escaper -------------------===//

#include "support/Json.h"

#include <gtest/gtest.h>

#include <string>

using namespace kiln::runtime;
using kiln::plan::ProvenanceEntry;

TEST(Json, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(jsonString(""), "\"\"");
  EXPECT_EQ(jsonString("plain text"), "\"plain text\"");
  EXPECT_EQ(jsonString("a\"b\\c/d"), "\"a\\\"b\\\\c/d\"");
  EXPECT_EQ(jsonString("\b\f\n\r\t"), "\"\\b\\f\\n\\r\\t\"");
  EXPECT_EQ(jsonString(std::string("x\0y", 3)), "\"x\\u0000y\"");
  EXPECT_EQ(jsonString("\x01\x1f\x7f"), "\"\\u0001\\u001f\\u007f\"");
}

TEST(Json, KeepsValidUtf8AndRepairsInvalidBytes) {
  // é (2 bytes), € (3), 𝄞 (4) pass through unchanged.
  EXPECT_EQ(jsonString("\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e"),
            "\"\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e\"");
  // A stray byte becomes the code point of its value (0xff -> U+00FF).
  EXPECT_EQ(jsonString("\xff"), "\"\xc3\xbf\"");
  // Truncated, overlong, surrogate and above-U+10FFFF sequences are not
  // UTF-8: each byte is repaired on its own.
  EXPECT_EQ(jsonString("\xe2\x82"), "\"\xc3\xa2\xc2\x82\"");
  EXPECT_EQ(jsonString("\xc0\x80"), "\"\xc3\x80\xc2\x80\"");
  EXPECT_EQ(jsonString("\xed\xa0\x80"), "\"\xc3\xad\xc2\xa0\xc2\x80\"");
  EXPECT_EQ(jsonString("\xf4\x90\x80\x80"),
            "\"\xc3\xb4\xc2\x90\xc2\x80\xc2\x80\"");
}

TEST(Json, WritesProvenanceAsAnObjectInOrder) {
  EXPECT_EQ(provenanceJson({}), "{}");
  std::vector<ProvenanceEntry> entries = {
      {"model.sha256", "ab12"}, {"compiler.command_line", "kilnc \"m.onnx\""}};
  EXPECT_EQ(provenanceJson(entries),
            "{\"model.sha256\": \"ab12\", \"compiler.command_line\": \"kilnc "
            "\\\"m.onnx\\\"\"}");
}
