#pragma once
inline float helper_double(float x) { return x * 2.0f; }
