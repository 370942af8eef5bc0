# reel: two commands do everything (see README.md)
#   make run    install what is missing, build, play generated tracks
#   make test   install what is missing, build, run every test
SHELL := /bin/bash
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
# Debian packages the build, the tests, the demo and the benchmark need.
PACKAGES := pkg-config libdbus-1-dev libmpv-dev libsqlite3-dev dbus-daemon playerctl ffmpeg python3 \
  pipewire pipewire-bin wireplumber pulseaudio pulseaudio-utils xvfb x11-utils python3-xlib
BENCH_PACKAGES := mpv mpv-mpris
DEMO_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/reel/demo

.PHONY: all deps bench-deps build release test run bench install uninstall clean

all: release

# Installs missing packages with apt-get when root; otherwise prints the line to run.
deps:
	@./scripts/ensure-packages $(PACKAGES)

bench-deps:
	@./scripts/ensure-packages $(PACKAGES) $(BENCH_PACKAGES)

build: deps
	$(SWIFT) build

# reel is started for every command; linked statically with the Swift runtime
# and Foundation it starts in 7 ms instead of 13 (at the cost of a larger file).
release: deps
	$(SWIFT) build -c release
	$(SWIFT) build -c release --static-swift-stdlib --product reel --build-path .build/static

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing

run: release
	@./scripts/demo "$(DEMO_DIR)"

bench: bench-deps release
	./.build/release/reel-bench

install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/reel/dbus \
	  $(DESTDIR)$(PREFIX)/share/dbus-1/services $(DESTDIR)$(PREFIX)/lib/systemd/user \
	  $(DESTDIR)$(PREFIX)/share/applications
	install -m 755 .build/release/reeld .build/static/release/reel $(DESTDIR)$(PREFIX)/bin/
	install -m 644 dbus/org.mpris.MediaPlayer2.reel.xml $(DESTDIR)$(PREFIX)/share/reel/dbus/
	sed 's|@BINDIR@|$(PREFIX)/bin|g' dbus/org.mpris.MediaPlayer2.reel.service \
	  > $(DESTDIR)$(PREFIX)/share/dbus-1/services/org.mpris.MediaPlayer2.reel.service
	sed 's|@BINDIR@|$(PREFIX)/bin|g' dbus/reeld.service > $(DESTDIR)$(PREFIX)/lib/systemd/user/reeld.service
	install -m 644 examples/reel.desktop $(DESTDIR)$(PREFIX)/share/applications/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/reeld $(DESTDIR)$(PREFIX)/bin/reel \
	  $(DESTDIR)$(PREFIX)/share/reel/dbus/org.mpris.MediaPlayer2.reel.xml \
	  $(DESTDIR)$(PREFIX)/share/dbus-1/services/org.mpris.MediaPlayer2.reel.service \
	  $(DESTDIR)$(PREFIX)/lib/systemd/user/reeld.service \
	  $(DESTDIR)$(PREFIX)/share/applications/reel.desktop

clean:
	rm -rf .build
