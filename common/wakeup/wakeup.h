// wakeup.h -- the one place long-poll wake-ups are named, published and subscribed to. Each
// long-polling group listens to its own topic only: the sync handler to pouch event logs
// ("pouch:events:<pouch id>"), cliauth to login requests ("pouch:login:<request id>"), so
// neither receives the other's traffic. Writers publish after COMMIT; a publish that fails is
// harmless (waiters re-read the database every second while Redis is away).
#pragma once

#include <string>
#include <vector>

#include "common/redis/client.h"

namespace pouch::wakeup {

enum class Topic { events, login };

std::string channel(Topic topic, const std::string& id);
// The PSUBSCRIBE pattern of a topic's channels, for the group's Parking.
std::string pattern(Topic topic);

// Publishes one wake-up per id; stops at the first failure (Redis down or stalled: 2,000
// publishes each waiting out a timeout would hold the request for minutes).
void publish(redis::Client& redis, Topic topic, const std::vector<std::string>& ids);
void publish(redis::Client& redis, Topic topic, const std::string& id);

}  // namespace pouch::wakeup
