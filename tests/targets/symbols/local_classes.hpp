#pragma once

namespace sprof_target {
int local_classes_outer(int x);
}
