// plan_diff.h -- what an admin's partial plan edit changes (decisions §7), as a pure function:
// the fields the request names whose value differs from the stored plan, in a fixed order.
// The handler writes exactly these (one UPDATE) and audits exactly these (before/after hold
// only the changed fields); no change means no write and no audit record.
#pragma once

#include <map>
#include <string>
#include <variant>
#include <vector>

namespace pouch::rules {

using PlanValue = std::variant<std::string, long long, bool>;
using PlanValues = std::map<std::string, PlanValue>;  // field name -> value

enum class PlanKind { text, integer, boolean };
struct PlanField {
    const char* name;
    PlanKind kind;
};

// The editable fields, in the order the handler binds them (its UPDATE's $2..$12).
inline constexpr PlanField kPlanFields[] = {
    {"slug", PlanKind::text},           {"name", PlanKind::text},
    {"description", PlanKind::text},    {"price_cents", PlanKind::integer},
    {"currency", PlanKind::text},       {"interval", PlanKind::text},
    {"pouch_limit", PlanKind::integer}, {"storage_bytes", PlanKind::integer},
    {"is_public", PlanKind::boolean},   {"is_active", PlanKind::boolean},
    {"sort", PlanKind::integer},
};

struct PlanChange {
    std::string field;
    PlanValue before, after;
};

// The changes `asked` makes to `current`, in kPlanFields order. A field absent from `asked`, or
// asked with its current value, is no change; names outside kPlanFields are ignored (the body
// schema refuses them before this runs).
std::vector<PlanChange> plan_diff(const PlanValues& current, const PlanValues& asked);

}  // namespace pouch::rules
