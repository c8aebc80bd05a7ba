// C++ for trawl emulate: exceptions thrown through several frames and
// caught by type (the unwinder reads .eh_frame and runs destructors on the
// way), standard and custom exception classes, std::string, containers,
// iostreams with formatting, and a string stream. The output is the same on
// any Linux; the exit status is the number of exceptions caught modulo 256.
//   exceptions [N]     N rounds (default 20)
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

int live_guards = 0;

struct Guard {
	std::string name;
	explicit Guard(std::string n) : name(std::move(n)) { live_guards++; }
	~Guard() { live_guards--; }
};

struct ParseError : std::runtime_error {
	int where;
	ParseError(const std::string &what, int at) : std::runtime_error(what), where(at) {}
};

int parse_digit(const std::string &s, int i)
{
	Guard g("digit");
	if (i >= static_cast<int>(s.size()))
		throw std::out_of_range("index " + std::to_string(i));
	char c = s[static_cast<size_t>(i)];
	if (c < '0' || c > '9')
		throw ParseError(std::string("not a digit: ") + c, i);
	return c - '0';
}

int deep(const std::string &s, int i, int depth)
{
	Guard g("deep" + std::to_string(depth));
	if (depth == 0)
		return parse_digit(s, i);
	return deep(s, i, depth - 1) + 1;
}

}  // namespace

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
	const std::string text = "31415x926";
	std::map<std::string, int> caught;
	std::vector<int> values;
	long sum = 0;
	for (int r = 0; r < rounds; r++) {
		int i = r % 11;
		try {
			int v = deep(text, i, r % 5);
			values.push_back(v);
			sum += v;
			if (v > 6)
				throw v;  // a plain int
		} catch (const ParseError &e) {
			caught["ParseError"]++;
			std::cout << "round " << r << ": " << e.what() << " at " << e.where << '\n';
		} catch (const std::out_of_range &e) {
			caught["out_of_range"]++;
			std::cout << "round " << r << ": out of range, " << e.what() << '\n';
		} catch (int v) {
			caught["int"]++;
			std::cout << "round " << r << ": big value " << v << '\n';
		}
		if (live_guards != 0) {
			std::cerr << "destructors not run: " << live_guards << " guards alive\n";
			return 100;
		}
	}
	try {
		std::unique_ptr<std::vector<int>> p(new std::vector<int>(3));
		p->at(7) = 1;
	} catch (const std::exception &e) {
		caught["std::exception"]++;
		std::cout << "at(): " << e.what() << '\n';
	}
	std::ostringstream os;
	os << std::hex << std::setw(8) << std::setfill('0') << sum << ' ' << std::dec << std::fixed
	   << std::setprecision(3) << (values.empty() ? 0.0 : static_cast<double>(sum) / values.size());
	std::cout << "sum/mean " << os.str() << '\n';
	int total = 0;
	for (const auto &kv : caught) {
		std::cout << std::left << std::setw(16) << kv.first << std::right << std::setw(4) << kv.second << '\n';
		total += kv.second;
	}
	std::istringstream in("7 11 13");
	int a = 0, b = 0, c = 0;
	in >> a >> b >> c;
	std::cerr << "parsed " << a * b * c << '\n';
	return total % 256;
}
