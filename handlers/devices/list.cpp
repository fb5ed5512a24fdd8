// list.cpp -- GET /v1/devices: the devices of the caller's account, revoked ones included,
// in creation order, paged by common/paging/paging.h (decisions §13).
#include "handlers/devices/routes.h"
#include "handlers/devices/sql.h"

namespace pouch::devices {

http::Response list(api::Call& call) {
    const auth::Caller& c = call.who();
    const paging::List list("devices/" + c.account_id, {paging::Key::natural, paging::Key::uuid});
    auto after = list.read(call.query);
    long long limit = call.query.integer("limit");
    auto conn = call.services.db.acquire();
    std::vector<DeviceRow> rows = conn->rows(
        sql::kListDevices, {.account_id = c.account_id,
                            .after_us = paging::after_number(after, 0),
                            .after_id = paging::after_key(after, 1),
                            .limit = limit + 1});
    int n = static_cast<int>(rows.size());
    return list.page(limit, n, n, [&](json::Out& o, int i) {
        const DeviceRow& d = rows[static_cast<size_t>(i)];
        o.obj();
        json::write_members(o, static_cast<const Device&>(d));
        o.end_obj();
        return paging::Keys{std::to_string(d.created_us), d.id};
    });
}

}  // namespace pouch::devices
