// cli_login_test.cpp -- the pure parts of `pouch login` and of what the CLI prints
// (clients/cli): defanging of text from elsewhere, device names held to the label rule, the
// --server address and its plain-HTTP rule, and the approval link with its code.
#include <gtest/gtest.h>

#include <string>

#include "clients/cli/approval_link.h"
#include "clients/cli/errors.h"
#include "clients/cli/server_url.h"
#include "clients/cli/terminal_text.h"
#include "common/crypto/confirm_code.h"
#include "common/crypto/es256.h"
#include "common/json/label.h"

using namespace pouch;
using namespace pouch::cli;

namespace {

const std::string kFffd = "\xEF\xBF\xBD";

// "a" + mid + "b" (a hex escape in a literal would swallow a following letter).
std::string ab(const std::string& mid) {
    return "a" + mid + "b";
}

// What checked_device_name says about `typed` as --name: "" when it passes.
std::string name_refusal(const std::string& typed) {
    try {
        checked_device_name(typed, "--name");
    } catch (const CliError& e) {
        EXPECT_EQ(e.code, kExitUsage);
        return e.what();
    }
    return "";
}

int usage_of(const std::string& url) {
    try {
        parse_server_url(url);
    } catch (const CliError& e) {
        return e.code;
    }
    return 0;
}

int transport_of(const std::string& url, bool insecure) {
    try {
        require_transport(parse_server_url(url), insecure);
    } catch (const CliError& e) {
        return e.code;
    }
    return 0;
}

}  // namespace

// ---- defang --------------------------------------------------------------------------------

TEST(CliDefang, PlainTextAndOrdinaryUnicodeStayAsTheyAre) {
    EXPECT_EQ(defang("the server answered 404 not_found"), "the server answered 404 not_found");
    EXPECT_EQ(defang("Zoë’s läptop 🐢 日本"), "Zoë’s läptop 🐢 日本");
    EXPECT_EQ(defang(""), "");
}

TEST(CliDefang, EveryC0ControlDelAndC1BecomesTheReplacementCharacter) {
    for (int c = 0; c < 0x20; ++c)
        EXPECT_EQ(defang(ab(std::string(1, static_cast<char>(c)))), ab(kFffd)) << c;
    EXPECT_EQ(defang(ab("\x7F")), ab(kFffd));
    EXPECT_EQ(defang(ab("\xC2\x80")), ab(kFffd));       // U+0080
    EXPECT_EQ(defang(ab("\xC2\x9B")), ab(kFffd));       // U+009B, the C1 CSI
    EXPECT_EQ(defang(ab("\xC2\x9F")), ab(kFffd));       // U+009F
    EXPECT_EQ(defang(ab("\xC2\xA0")), ab("\xC2\xA0"));  // U+00A0 is no control
    // An ANSI sequence that would hide the rest of the line loses its ESC.
    EXPECT_EQ(defang("code \x1B[8m1234"), "code " + kFffd + "[8m1234");
}

TEST(CliDefang, EveryBidiControlOfTheRuleIsReplacedAndItsNeighboursAreNot) {
    for (uint32_t cp : {0x061Cu, 0x200Eu, 0x200Fu, 0x202Au, 0x202Bu, 0x202Cu, 0x202Du, 0x202Eu,
                        0x2066u, 0x2067u, 0x2068u, 0x2069u})
        EXPECT_TRUE(json::is_control_or_bidi(cp)) << std::hex << cp;
    for (uint32_t cp : {0x061Bu, 0x061Du, 0x200Du, 0x2010u, 0x2029u, 0x202Fu, 0x2065u, 0x206Au})
        EXPECT_FALSE(json::is_control_or_bidi(cp)) << std::hex << cp;
    EXPECT_EQ(defang("evil\xE2\x80\xAEtxt.exe"), "evil" + kFffd + "txt.exe");  // U+202E RLO
    EXPECT_EQ(defang("\xE2\x81\xA6x\xE2\x81\xA9"), kFffd + "x" + kFffd);       // U+2066, U+2069
    EXPECT_EQ(defang("\xD8\x9C"), kFffd);                                      // U+061C
}

TEST(CliDefang, BytesThatAreNotUtf8BecomeQuestionMarks) {
    EXPECT_EQ(defang(ab("\xFF")), "a?b");
    EXPECT_EQ(defang(ab("\x80")), "a?b");           // a stray continuation byte
    EXPECT_EQ(defang("\xC0\x9B"), "??");            // an overlong ESC-like form
    EXPECT_EQ(defang("\xE0\x80\x9B"), "???");       // another overlong form
    EXPECT_EQ(defang("\xED\xA0\x80"), "???");       // a surrogate
    EXPECT_EQ(defang("\xF4\x90\x80\x80"), "????");  // above U+10FFFF
    EXPECT_EQ(defang("ab\xE2\x80"), "ab??");        // cut short
    EXPECT_EQ(defang(std::string("a\0b", 3)), ab(kFffd));
}

TEST(CliDefang, ItsOutputIsAlreadyDefanged) {
    std::string s = "x\x1B\xE2\x80\xAE\xFF\xC2\x85y";
    EXPECT_EQ(defang(defang(s)), defang(s));
}

// --json output: a C1 CSI or a bidi override in a member's file name reaches the terminal as
// an ASCII escape, the JSON value unchanged.
TEST(CliText, JsonOutputIsPlainAscii) {
    EXPECT_EQ(ascii_json("{\"name\":\"a\\u001b[8m\xC2\x9B\xE2\x80\xAE"
                         "b\",\"n\":1}"),
              "{\"name\":\"a\\u001B[8m\\u009B\\u202Eb\",\"n\":1}");
    EXPECT_EQ(ascii_json("{\"name\":\"Zo\xC3\xAB \xF0\x9F\x90\xA2\"}"),
              "{\"name\":\"Zo\\u00EB \\uD83D\\uDC22\"}");
    EXPECT_EQ(ascii_json("not json \x1B"), "not json " + kFffd);
}

TEST(CliText, CharactersAreCountedAndCutWhole) {
    EXPECT_EQ(char_count("Zoë🐢"), 4u);
    EXPECT_EQ(first_chars("Zoë🐢x", 4), "Zoë🐢");
    EXPECT_EQ(first_chars("ab", 5), "ab");
    EXPECT_EQ(last_chars("Zoë🐢x", 3), "ë🐢x");
    EXPECT_EQ(last_chars("ab", 5), "ab");
}

// ---- labels ----------------------------------------------------------------------------------

TEST(CliLabel, ValidNamesPassAtTheLengthLimit) {
    EXPECT_EQ(name_refusal("laptop"), "");
    EXPECT_EQ(name_refusal("Zoë’s laptop (work)"), "");
    EXPECT_EQ(name_refusal(std::string(64, 'a')), "");
    std::string turtles;
    for (int i = 0; i < 64; ++i) turtles += "🐢";
    EXPECT_EQ(name_refusal(turtles), "");  // 64 scalar values, 256 bytes
}

// The service's own rule (common/json/label.h, proved at its edges by json_label_test), after
// NFC: the CLI refuses before anything is sent, with the rule's words.
TEST(CliLabel, NamesOutsideTheRuleAreRefusedWithTheReason) {
    const std::string no = "--name cannot be a device name: it must ";
    EXPECT_EQ(name_refusal(""), no + "be at least 1 character");
    EXPECT_EQ(name_refusal(std::string(65, 'a')), no + "be at most 64 characters");
    EXPECT_EQ(name_refusal("x/../../PWNED"), no + "not contain '/' or '\\'");
    EXPECT_EQ(name_refusal("a\\b"), no + "not contain '/' or '\\'");
    EXPECT_EQ(name_refusal("a\tb"), no + "not contain a control character (U+0009)");
    EXPECT_EQ(name_refusal("a\x7F"), no + "not contain a control character (U+007F)");
    EXPECT_EQ(name_refusal("a\xC2\x85"), no + "not contain a control character (U+0085)");
    EXPECT_EQ(name_refusal(ab("\xE2\x80\xAE")), no + "not contain a bidi control (U+202E)");
    EXPECT_EQ(name_refusal(" laptop"), no + "not start or end with white space");
    EXPECT_EQ(name_refusal("laptop "), no + "not start or end with white space");
    EXPECT_EQ(name_refusal("laptop\xE3\x80\x80"), no + "not start or end with white space");
    EXPECT_EQ(name_refusal("a\xFF"), "--name is not valid UTF-8");
    // A decomposed name is put in NFC first, then sent in that form.
    EXPECT_EQ(checked_device_name("Zoe\xCC\x88", "--name"), "Zo\xC3\xAB");
    EXPECT_EQ(to_nfc("Zoe\xCC\x88"), "Zo\xC3\xAB");
}

// ---- --server --------------------------------------------------------------------------------

TEST(CliServerUrl, IsWrittenOneWay) {
    ServerUrl u = parse_server_url("HTTPS://Pouch.Example.COM:8443/base/");
    EXPECT_EQ(u.base, "https://pouch.example.com:8443/base");
    EXPECT_EQ(u.host, "pouch.example.com");
    EXPECT_TRUE(u.https);
    EXPECT_FALSE(u.loopback);
    EXPECT_EQ(parse_server_url("http://127.0.0.1:8080").base, "http://127.0.0.1:8080");
    EXPECT_EQ(parse_server_url("http://[::1]:8080//").base, "http://[::1]:8080");
    EXPECT_EQ(parse_server_url("https://h:65535").base, "https://h:65535");
}

TEST(CliServerUrl, MalformedAddressesAreUsageErrors) {
    for (const char* bad : {"",
                            "127.0.0.1:8080",
                            "ftp://h",
                            "https://",
                            "https://:80",
                            "https://h:",
                            "https://h:0",
                            "https://h:65536",
                            "https://h:08080",
                            "https://h:80x",
                            "https://user@h",
                            "https://h/a?b",
                            "https://h/#x",
                            "https://h#keys=x",
                            "https://h /x",
                            "https://h\x1B[8m",
                            "https://h\xC3\xA9.com",
                            "https://h_x.com",
                            "https://[::1",
                            "https://[]",
                            "https://[::1]x",
                            "https://h/a\\b",
                            "https://h/a\"b"})
        EXPECT_EQ(usage_of(bad), kExitUsage) << bad;
}

TEST(CliServerUrl, LoopbackIsLocalhost127Slash8AndIpv6One) {
    for (const char* h : {"localhost", "127.0.0.1", "127.255.255.254", "127.1.2.3", "[::1]"})
        EXPECT_TRUE(is_loopback_host(h)) << h;
    for (const char* h : {"localhost.", "localhost.example.com", "127.0.0.1.example.com",
                          "128.0.0.1", "127.0.0", "127.0.0.1.1", "127.00.0.1", "127.0.0.256",
                          "[::2]", "[0:0:0:0:0:0:0:1]", "10.0.0.1", "example.com", "127.1"})
        EXPECT_FALSE(is_loopback_host(h)) << h;
    EXPECT_TRUE(parse_server_url("http://LOCALHOST:8080").loopback);
}

TEST(CliServerUrl, PlainHttpGoesOnlyToLoopbackUnlessInsecureIsAsked) {
    EXPECT_EQ(transport_of("https://pouch.example.com", false), 0);
    EXPECT_EQ(transport_of("http://127.0.0.1:8080", false), 0);
    EXPECT_EQ(transport_of("http://localhost:8080", false), 0);
    EXPECT_EQ(transport_of("http://[::1]:8080", false), 0);
    EXPECT_EQ(transport_of("http://pouch.example.com", false), kExitUsage);
    EXPECT_EQ(transport_of("http://192.168.1.10:8080", false), kExitUsage);
    EXPECT_EQ(transport_of("http://127.0.0.1.nip.io", false), kExitUsage);
    EXPECT_EQ(transport_of("http://pouch.example.com", true), 0);
    EXPECT_NE(insecure_http_warning(parse_server_url("http://lab:8080")).find("lab"),
              std::string::npos);
}

// ---- the approval link -----------------------------------------------------------------------

TEST(CliApprovalLink, IsBuiltFromTheCliBaseTheRequestTheKeysAndTheNonce) {
    Coordinates sign{std::string(43, 'A'), std::string(43, 'B')};
    Coordinates enc{std::string(43, 'C'), std::string(43, 'D')};
    std::string nonce(16, '\xFF');
    const char* id = "3f2a4c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b";
    ApprovalPrompt p = approval_prompt("https://pouch.example.com", id, sign, enc, nonce);
    EXPECT_EQ(p.link, "https://pouch.example.com/cli/approve?request=" + std::string(id) +
                          "#keys=" + sign.x + "." + sign.y + "." + enc.x + "." + enc.y +
                          "&n=_____________________w");
    std::string sign_jkt = crypto::jwk_thumbprint(sign.x, sign.y);
    std::string enc_jkt = crypto::jwk_thumbprint(enc.x, enc.y);
    EXPECT_EQ(p.code, crypto::confirm_code_v2(nonce, id, sign_jkt, enc_jkt));
    EXPECT_EQ(p.fingerprint, crypto::key_fingerprint(sign_jkt));
    EXPECT_EQ(expected_authorize_url("https://pouch.example.com", id),
              "https://pouch.example.com/cli/approve?request=" + std::string(id));
}

TEST(CliApprovalLink, OnlyACanonicalLowerCaseRequestIdGoesIntoALink) {
    EXPECT_TRUE(valid_request_id("3f2a4c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b"));
    EXPECT_FALSE(valid_request_id("3F2A4C1E-8B7D-4E6F-9A0B-1C2D3E4F5A6B"));
    EXPECT_FALSE(valid_request_id("3f2a4c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b#keys=x"));
    EXPECT_FALSE(valid_request_id("3f2a4c1e8b7d4e6f9a0b1c2d3e4f5a6b"));
    EXPECT_FALSE(valid_request_id(""));
}

TEST(CliApprovalLink, TheApprovingSideReadsBackExactlyWhatTheCliBuilt) {
    Coordinates sign{std::string(42, 'a') + "A", std::string(43, 'b')};
    Coordinates enc{std::string(43, 'c'), std::string(42, '-') + "_"};
    std::string nonce = "0123456789abcdef";
    const char* id = "3f2a4c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b";
    std::string link = approval_prompt("http://127.0.0.1:8080/p", id, sign, enc, nonce).link;
    auto p = parse_approval_link(link);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->base, "http://127.0.0.1:8080/p");
    EXPECT_EQ(p->request_id, id);
    EXPECT_EQ(p->sign.x, sign.x);
    EXPECT_EQ(p->sign.y, sign.y);
    EXPECT_EQ(p->enc.x, enc.x);
    EXPECT_EQ(p->enc.y, enc.y);
    EXPECT_EQ(p->nonce, nonce);
}

TEST(CliApprovalLink, AMalformedLinkIsNotRead) {
    Coordinates sign{std::string(43, 'A'), std::string(43, 'B')};
    Coordinates enc{std::string(43, 'C'), std::string(43, 'D')};
    const std::string id = "3f2a4c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b";
    std::string good = approval_prompt("https://h", id, sign, enc, std::string(16, 'n')).link;
    ASSERT_TRUE(parse_approval_link(good));
    size_t hash = good.find('#');
    std::string url = good.substr(0, hash), frag = good.substr(hash);
    std::string keys = frag.substr(0, frag.find("&n="));
    std::string n = frag.substr(frag.find("&n=") + 3);
    for (const std::string& bad : {
             url,                                                // no fragment
             url + keys,                                         // no nonce
             url + keys + "&n=" + n.substr(1),                   // a nonce of 21 characters
             url + keys + "&n=" + n + "A",                       // 23 characters
             url + keys + "&n=" + n.substr(0, 21) + "v",         // not canonical b64url
             url + keys + "&n=" + n + "&x=1",                    // something more
             url + "#n=" + n + "&" + keys.substr(1),             // another order
             url + keys.substr(0, keys.size() - 1) + "&n=" + n,  // a coordinate short
             url + keys.substr(0, 50) + "+" + keys.substr(51) + "&n=" + n,  // not b64url
             "https://h/cli/approve?request=" + id.substr(0, 35) + "#" + frag.substr(1),
             "https://h/cli/approve?request=" +
                 std::string("3F2A4C1E-8B7D-4E6F-9A0B-1C2D3E4F5A6B") + frag,
             "https://h/cli/approve?req=" + id + frag,
             "/cli/approve?request=" + id + frag,
         })
        EXPECT_FALSE(parse_approval_link(bad)) << bad;
}
