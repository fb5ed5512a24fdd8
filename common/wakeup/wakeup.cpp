// wakeup.cpp -- channel names and publishing of wakeup.h.
#include "common/wakeup/wakeup.h"

namespace pouch::wakeup {

namespace {

const char* prefix(Topic topic) {
    return topic == Topic::events ? "pouch:events:" : "pouch:login:";
}

}  // namespace

std::string channel(Topic topic, const std::string& id) { return prefix(topic) + id; }

std::string pattern(Topic topic) { return std::string(prefix(topic)) + "*"; }

void publish(redis::Client& redis, Topic topic, const std::vector<std::string>& ids) {
    for (const auto& id : ids)
        if (!redis.publish(channel(topic, id), "1")) return;
}

void publish(redis::Client& redis, Topic topic, const std::string& id) {
    redis.publish(channel(topic, id), "1");
}

}  // namespace pouch::wakeup
