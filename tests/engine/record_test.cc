#include <catch2/catch.hpp>
#include <catch2/catch.hpp>
