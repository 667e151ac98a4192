#pragma once

namespace sprof_target {
int inline_chain_outer(int x);
}
