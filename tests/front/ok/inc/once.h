#pragma once
float once_value() { return 4.0f; }
