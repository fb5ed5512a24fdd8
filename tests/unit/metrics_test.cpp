// metrics_test.cpp -- the process metrics of common/metrics/metrics.h: requests counted and
// timed under their route pattern (bounded series), probes read when scraped and gone with
// their handle, all in the Prometheus text format.
#include <gtest/gtest.h>

#include <string>

#include "common/metrics/metrics.h"

namespace m = pouch::metrics;

namespace {

// The pattern of the one route these tests pretend to have, as the dispatcher passes it.
const std::string kPouchRoute = "/v1/pouches/{pouchId:uuid}";

bool has_line(const std::string& text, const std::string& line) {
    return text.find(line + "\n") != std::string::npos;
}

}  // namespace

TEST(Metrics, RequestsAreCountedAndTimedUnderTheirRoutePattern) {
    m::init("unit-route");
    m::observe_request(kPouchRoute, "GET", 200, 0.002);
    m::observe_request(kPouchRoute, "GET", 200, 0.3);
    m::observe_request(kPouchRoute, "GET", 404, 0.001);
    std::string text = m::scrape();
    const std::string labels =
        R"({group="unit-route",method="GET",route="/v1/pouches/{pouchId:uuid}",status="200")";
    EXPECT_TRUE(has_line(text, "pouch_http_requests_total" + labels + "} 2")) << text;
    EXPECT_TRUE(has_line(text, "pouch_http_request_duration_seconds_count" + labels + "} 2"));
    EXPECT_TRUE(
        has_line(text, "pouch_http_request_duration_seconds_bucket" + labels + ",le=\"0.005\"} 1"));
    EXPECT_TRUE(
        has_line(text, "pouch_http_request_duration_seconds_bucket" + labels + ",le=\"0.5\"} 2"));
    EXPECT_TRUE(
        has_line(text, "pouch_http_requests_total" +
                           std::string(R"({group="unit-route",method="GET",)"
                                       R"(route="/v1/pouches/{pouchId:uuid}",status="404"} 1)")));
}

TEST(Metrics, UnknownPathsAndMethodsShareOneSeries) {
    m::init("unit-unknown");
    m::observe_request("", "GET", 404, 0.001);  // no route matched
    m::observe_request("", "GET", 404, 0.001);
    m::observe_request("", "BREW", 404, 0.001);
    std::string text = m::scrape();
    EXPECT_TRUE(has_line(text, R"(pouch_http_requests_total{group="unit-unknown",method="GET",)"
                               R"(route="unmatched",status="404"} 2)"))
        << text;
    EXPECT_TRUE(has_line(text, R"(pouch_http_requests_total{group="unit-unknown",method="other",)"
                               R"(route="unmatched",status="404"} 1)"));
    EXPECT_EQ(text.find("BREW"), std::string::npos);
}

TEST(Metrics, ProbeIsReadWhenScrapedAndGoneWithItsHandle) {
    m::init("unit-probe");
    double value = 3;
    {
        m::Probe p = m::add_probe("pouch_unit_probe", "A test gauge.", m::Kind::gauge,
                                  [&value] { return value; });
        EXPECT_TRUE(has_line(m::scrape(), R"(pouch_unit_probe{group="unit-probe"} 3)"));
        value = 7;
        std::string text = m::scrape();
        EXPECT_TRUE(has_line(text, R"(pouch_unit_probe{group="unit-probe"} 7)"));
        EXPECT_TRUE(has_line(text, "# TYPE pouch_unit_probe gauge"));
    }
    EXPECT_EQ(m::scrape().find("pouch_unit_probe"), std::string::npos);
}

TEST(Metrics, CounterProbeHasCounterTypeAndReplacingAHandleUnregistersTheOld) {
    m::init("unit-counter");
    m::Probe p = m::add_probe("pouch_unit_old_total", "Old.", m::Kind::counter, [] { return 1.0; });
    p = m::add_probe("pouch_unit_new_total", "New.", m::Kind::counter, [] { return 5.0; });
    std::string text = m::scrape();
    EXPECT_EQ(text.find("pouch_unit_old_total"), std::string::npos) << text;
    EXPECT_TRUE(has_line(text, "# TYPE pouch_unit_new_total counter"));
    EXPECT_TRUE(has_line(text, R"(pouch_unit_new_total{group="unit-counter"} 5)"));
}
