module github.com/usctp/usctp

go 1.26
