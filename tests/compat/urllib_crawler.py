"""A small urllib-based crawler, as people write them with the standard library.

The compat test runs this file as it is, then again with only the import line changed to
``from robotrules.compat import RobotFileParser``, and expects the same output.
"""

import sys
import urllib.request
from urllib.robotparser import RobotFileParser

AGENT = "examplebot"


def main(base: str, paths: list[str]) -> None:
    robots = RobotFileParser()
    robots.set_url(base + "/robots.txt")
    robots.read()
    print("crawl-delay", robots.crawl_delay(AGENT))
    rate = robots.request_rate(AGENT)
    print("request-rate", rate and (rate.requests, rate.seconds))
    print("sitemaps", robots.site_maps())
    for path in paths:
        url = base + path
        if not robots.can_fetch(AGENT, url):
            print("skip", path)
            continue
        with urllib.request.urlopen(url) as response:
            print("got", path, response.status)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
