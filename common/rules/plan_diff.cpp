// plan_diff.cpp -- see plan_diff.h.
#include "common/rules/plan_diff.h"

namespace pouch::rules {

std::vector<PlanChange> plan_diff(const PlanValues& current, const PlanValues& asked) {
    std::vector<PlanChange> changes;
    for (const PlanField& f : kPlanFields) {
        auto a = asked.find(f.name);
        if (a == asked.end()) continue;
        auto c = current.find(f.name);
        if (c != current.end() && c->second == a->second) continue;
        changes.push_back({f.name, c == current.end() ? PlanValue{} : c->second, a->second});
    }
    return changes;
}

}  // namespace pouch::rules
