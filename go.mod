module github.com/usctp/usctp

go 1.26

require github.com/google/gopacket v1.1.19
