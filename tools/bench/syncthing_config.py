#!/usr/bin/env python3
"""syncthing_config.py -- rewrites the config.xml `syncthing generate` wrote for make bench's
clients section (issue 25): one device on loopback only, paired with one peer, sharing one
folder.

  syncthing_config.py HOME --name NAME --listen PORT --gui PORT --apikey KEY
      --folder PATH --peer-id ID --peer-port PORT [--watch-delay S]

Everything that would reach past 127.0.0.1 is off: global and local discovery, relays, NAT
traversal (and with it STUN), usage reporting, crash reporting, automatic upgrades. The GUI and
its REST API listen on 127.0.0.1:GUI with the API key KEY; the sync protocol listens on
tcp://127.0.0.1:LISTEN; the peer is reached at its static tcp://127.0.0.1:PEER-PORT. The
folder "bench" (PATH) is sendreceive, shared with the peer, with the file watcher on and its
delay WATCH-DELAY seconds (default 1: the shortest Syncthing 1.19 accepts, as the field is a
whole number of seconds). setLowPriority is off, so Syncthing runs at the same priority as the
Pouch CLI it is compared with.
"""
import argparse
import copy
import os
import xml.etree.ElementTree as ET


def text(parent, tag, value):
    el = parent.find(tag)
    if el is None:
        el = ET.SubElement(parent, tag)
    el.text = str(value)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("home")
    ap.add_argument("--name", required=True)
    ap.add_argument("--listen", type=int, required=True)
    ap.add_argument("--gui", type=int, required=True)
    ap.add_argument("--apikey", required=True)
    ap.add_argument("--folder", required=True)
    ap.add_argument("--peer-id", required=True)
    ap.add_argument("--peer-port", type=int, required=True)
    ap.add_argument("--watch-delay", default="1")
    a = ap.parse_args()
    path = os.path.join(a.home, "config.xml")
    tree = ET.parse(path)
    root = tree.getroot()

    me = root.find("device")
    my_id = me.get("id")
    me.set("name", a.name)
    text(me, "address", f"tcp://127.0.0.1:{a.listen}")
    peer = copy.deepcopy(me)
    peer.set("id", a.peer_id)
    peer.set("name", "peer")
    text(peer, "address", f"tcp://127.0.0.1:{a.peer_port}")
    root.insert(list(root).index(me) + 1, peer)

    for f in root.findall("folder"):
        root.remove(f)
    folder = copy.deepcopy(root.find("defaults/folder"))
    folder.set("id", "bench")
    folder.set("label", "bench")
    folder.set("path", a.folder)
    folder.set("type", "sendreceive")
    folder.set("fsWatcherEnabled", "true")
    folder.set("fsWatcherDelayS", a.watch_delay)
    for d in folder.findall("device"):
        folder.remove(d)
    for dev_id in (my_id, a.peer_id):
        d = ET.Element("device", {"id": dev_id, "introducedBy": ""})
        ET.SubElement(d, "encryptionPassword").text = ""
        folder.insert(1, d)
    root.insert(0, folder)

    gui = root.find("gui")
    gui.set("enabled", "true")
    gui.set("tls", "false")
    text(gui, "address", f"127.0.0.1:{a.gui}")
    text(gui, "apikey", a.apikey)

    opts = root.find("options")
    for tag, value in {
        "listenAddress": f"tcp://127.0.0.1:{a.listen}",
        "globalAnnounceEnabled": "false",
        "localAnnounceEnabled": "false",
        "relaysEnabled": "false",
        "natEnabled": "false",
        "urAccepted": "-1",
        "autoUpgradeIntervalH": "0",
        "crashReportingEnabled": "false",
        "startBrowser": "false",
        "setLowPriority": "false",
        "restartOnWakeup": "false",
        "stunServer": "",
        "announceLANAddresses": "false",
    }.items():
        text(opts, tag, value)
    tree.write(path)


if __name__ == "__main__":
    main()
