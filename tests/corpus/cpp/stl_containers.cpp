// STL containers: vector, map, unordered_map, string, algorithms.
#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <unordered_map>
#include <vector>

std::map<std::string, int> word_frequencies(const std::vector<std::string> &words) {
    std::map<std::string, int> freq;
    for (const auto &w : words)
        ++freq[w];
    return freq;
}

double median(std::vector<double> v) {
    if (v.empty())
        return 0.0;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::vector<int> prefix_sums(const std::vector<int> &v) {
    std::vector<int> out(v.size());
    std::partial_sum(v.begin(), v.end(), out.begin());
    return out;
}

std::string join(const std::vector<std::string> &parts, const std::string &sep) {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) {
        if (i)
            out += sep;
        out += parts[i];
    }
    return out;
}

int most_common(const std::vector<int> &v) {
    std::unordered_map<int, int> counts;
    for (int x : v)
        counts[x]++;
    auto it = std::max_element(counts.begin(), counts.end(),
                               [](const auto &a, const auto &b) { return a.second < b.second; });
    return it == counts.end() ? -1 : it->first;
}

std::vector<double> normalize(std::vector<double> v) {
    double total = std::accumulate(v.begin(), v.end(), 0.0);
    if (total != 0)
        std::transform(v.begin(), v.end(), v.begin(), [total](double x) { return x / total; });
    return v;
}
